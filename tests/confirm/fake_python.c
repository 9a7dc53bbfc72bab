/*
 * fake_python: a stand-in python.exe for `check --confirm-import` under
 * Wine (no CPython for Windows can be fetched here). It checks that it was
 * started as the checker must start it — `python.exe -c "import torch"`
 * (arguments intact through CreateProcessW quoting) from the folder that
 * holds the torch package (so that this torch is the one imported) — and
 * then behaves as TDC_FAKE_PYTHON says:
 *   ok       exit 0, as a successful import
 *   fail126  the traceback torch raises for a missing DLL, exit 1
 *   hang     never returns (the checker's timeout must end it)
 *   flood126 3 MB on stdout and on stderr at once, then fail126's traceback:
 *            the checker must drain both pipes (no deadlock) and keep the tail
 * A wrong invocation prints "fake python: bad invocation ..." and exits 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

int main(int argc, char **argv)
{
	const char *mode = getenv("TDC_FAKE_PYTHON");
	char cwd[MAX_PATH];
	if (!GetCurrentDirectoryA(MAX_PATH, cwd) || GetFileAttributesA("torch\\version.py") == INVALID_FILE_ATTRIBUTES ||
	    argc != 3 || strcmp(argv[1], "-c") || strcmp(argv[2], "import torch")) {
		fprintf(stderr, "fake python: bad invocation (argc %d, cwd %s)\n", argc, cwd);
		return 3;
	}
	if (mode && !strcmp(mode, "hang"))
		for (;;)
			Sleep(1000);
	if (mode && !strcmp(mode, "flood126")) {
		static char block[65536];
		memset(block, 'x', sizeof(block) - 1);
		for (int i = 0; i < 48; i++) {
			fputs(block, stdout);
			fputs(block, stderr);
		}
		fputs("\n", stderr);
		fflush(stdout);
		mode = "fail126";
	}
	if (mode && !strcmp(mode, "fail126")) {
		fprintf(stderr, "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
				"OSError: [WinError 126] The specified module could not be found. Error loading "
				"\"%s\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
			cwd);
		return 1;
	}
	return 0;
}
