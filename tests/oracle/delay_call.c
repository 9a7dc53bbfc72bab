/*
 * delay_call: calls one export of a DLL loaded the way torch's dependencies
 * are, to see where the DLL's delay-loaded imports come from when the first
 * call resolves them (the Wine oracle for delay loads, tests/oracle/wine.sh).
 *
 *   delay_call.exe OUT DLLDIR DLL EXPORT PROBE
 *
 * In order:
 *   1. AddDllDirectory(DLLDIR) (torch's os.add_dll_directory), no
 *      SetDefaultDllDirectories (torch calls none);
 *   2. LoadLibraryExW(DLL, NULL, 0x1100): LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 *      LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, the flags torch and CPython use;
 *   3. LoadLibraryExW(PROBE, NULL, 0) where PROBE is a bare DLL name: the
 *      call the default delay-load helper makes (delayhlp.cpp: LoadLibraryExA
 *      with no flags), i.e. the standard search order, which does not include
 *      the AddDllDirectory folders (learn.microsoft.com, "Dynamic-link library
 *      search order"); freed at once if it loads;
 *   4. EXPORT(p) with p pointing to 64 zero bytes (a BLAS "cabs1" returns
 *      |re|+|im| of the complex number at p), under a vectored exception
 *      handler that ends the process on the delay-load exceptions
 *      0xC06D007E (module) / 0xC06D007F (procedure), as the real first call
 *      would fail;
 *   5. GetModuleHandleExW(PROBE): where PROBE was loaded from, if it was.
 *
 * OUT gets one line per step: "add_dll_directory 1", "load 0",
 * "default_search 126", "call ok", "probe_loaded C:\...". Exit status 0, or
 * the exception code on a delay-load failure.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

static FILE *out;

static LONG CALLBACK on_exception(PEXCEPTION_POINTERS ep)
{
	DWORD code = ep->ExceptionRecord->ExceptionCode;
	if (code == 0xC06D007E || code == 0xC06D007F) {
		fprintf(out, "call exception 0x%08lX\n", (unsigned long)code);
		fclose(out);
		ExitProcess(code);
	}
	return EXCEPTION_CONTINUE_SEARCH;
}

int wmain(int argc, wchar_t **argv)
{
	HMODULE h, p = NULL;
	float (*fn)(const void *);
	static const unsigned char zeros[64];
	char name[512];
	wchar_t path[MAX_PATH];

	if (argc != 6)
		return 2;
	out = _wfopen(argv[1], L"w");
	if (!out)
		return 3;
	fprintf(out, "add_dll_directory %d\n", AddDllDirectory(argv[2]) != NULL);
	h = LoadLibraryExW(argv[3], NULL, 0x1100);
	fprintf(out, "load %lu\n", h ? 0UL : (unsigned long)GetLastError());
	if (!h)
		return fclose(out), 4;
	{
		HMODULE d = LoadLibraryExW(argv[5], NULL, 0);
		fprintf(out, "default_search %lu\n", d ? 0UL : (unsigned long)GetLastError());
		if (d)
			FreeLibrary(d);
	}
	WideCharToMultiByte(CP_ACP, 0, argv[4], -1, name, sizeof name, NULL, NULL);
	fn = (float (*)(const void *))(void *)GetProcAddress(h, name);
	if (!fn)
		return fprintf(out, "no export %s\n", name), fclose(out), 5;
	AddVectoredExceptionHandler(1, on_exception);
	fprintf(out, "call ok %g\n", (double)fn(zeros));
	if (GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, argv[5], &p) &&
	    GetModuleFileNameW(p, path, MAX_PATH))
		fprintf(out, "probe_loaded %ls\n", path);
	else
		fprintf(out, "probe_loaded none\n");
	fclose(out);
	return 0;
}
