/*
 * torchload_oracle: a real Windows loader run of torch's DLL procedure.
 *
 * torch-dll-check emulates, statically, what the Windows loader does when
 * `import torch` runs. This program does the same thing for real, so that its
 * outcome can be compared with the emulation: under Wine in the test suite
 * (tests/oracle/wine.sh, tests/scenarios/), and later on Windows as the
 * checker's live-confirmation helper.
 *
 * What it performs (mode `torch`), in the order torch and CPython do it:
 *   1. SetErrorMode(SEM_FAILCRITICALERRORS), as torch's _load_dll_libraries
 *      does through ctypes (kernel32.SetErrorMode(0x0001)).
 *   2. AddDllDirectory(d) for every --dll-path, in the given order (torch's
 *      os.add_dll_directory loop). SetDefaultDllDirectories is NOT called,
 *      exactly like torch.
 *   3. The VC++ runtime probe: ctypes.CDLL("vcruntime140.dll"), then
 *      "msvcp140.dll", then "vcruntime140_1.dll", stopping at the first
 *      failure (torch catches the OSError and prints a warning). For a bare
 *      name ctypes calls LoadLibraryExW(name, NULL,
 *      LOAD_LIBRARY_SEARCH_DEFAULT_DIRS). Skipped with --no-vc-probe.
 *   4. Every <torch-dir>\lib\*.dll in FindFirstFileW order (what Python's
 *      glob() sees: no sorting; names starting with '.' are skipped, the
 *      ".dll" suffix is matched case-insensitively as fnmatch does on
 *      Windows): LoadLibraryExW(path, NULL, 0x00001100). On error 126, once,
 *      PATH = ";".join(dll_paths) + ";" + PATH, then LoadLibraryW(path).
 *      torch raises on the first error; this program goes on with the next
 *      DLL (unless --stop-at-first-error) so that every binary gets a verdict,
 *      which is what the checker reports too.
 *   5. Every --pyd, as CPython's Python/dynload_win.c loads an extension:
 *      LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 *      LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR) under SEM_FAILCRITICALERRORS.
 *   L. A frozen app's launcher (--set-dll-directory, --launcher-load), before
 *      everything else: SetDllDirectoryW(DIR), then each FILE with
 *      LoadLibraryExW(FILE, NULL, LOAD_WITH_ALTERED_SEARCH_PATH), as
 *      PyInstaller's bootloader does before Python runs (pyi_main.c,
 *      pyi_utils_win32.c; docs/loader.md "Frozen apps"). Run the program
 *      from the app's folder (a copy beside App.exe), which is then the
 *      application folder.
 *   0./6. Packages imported before torch (--first-dll-path, --first-path-prepend,
 *      --first: before step 1, stage "first") and extensions after it
 *      (--ext-dll-path, --ext: after step 5, stage "extension"), each step in
 *      argument order: AddDllDirectory, PATH prepended, or the binary loaded
 *      with the same flags as step 5 (ctypes.CDLL of a full path and CPython
 *      both use 0x1100).
 * Nothing is ever freed: modules that loaded stay in the process's
 * loaded-module list and satisfy later imports by name, as in torch.
 *
 * Mode `probe` loads each given path with the given flags (after optional
 * AddDllDirectory / SetDefaultDllDirectories calls) and reports
 * GetLastError(): a building block for answering single loader questions.
 *
 * Output: one JSON object per line, UTF-8, to --out FILE (a file, never a
 * pipe: under Wine helper processes keep pipes open). First
 * {"event":"env","PATH":"..."} (the PATH the process started with), then per
 * binary:
 *   {"order":3,"kind":"dll","path":"C:\\...\\fbgemm.dll",
 *    "stage":"add_dll_directory","error":126,"first_error":126,
 *    "loaded":["C:\\...\\asmjit.dll", ...]}
 * stage is "vc_probe", "add_dll_directory", "path_fallback" or "cpython";
 * error is GetLastError() after the last attempt (0 = loaded); first_error
 * (path_fallback only) the error of the 0x1100 attempt; loaded lists the
 * modules that entered the process during this load (where each dependency
 * really came from). Before and after every load a marker line
 * "@@oracle begin N tid=XXXX" / "@@oracle end N E" goes to stderr, so that loader
 * diagnostics written to the same stream (Wine's WINEDEBUG=warn+module) can
 * be attributed to the binary being loaded.
 *
 * Arguments are read as UTF-16 (GetCommandLineW, split by the documented
 * Microsoft C runtime rules), so non-ASCII paths work; an argument "@FILE"
 * is replaced by the lines of FILE (UTF-8, one argument per line), which
 * avoids any dependence on the code page of whoever starts the program.
 *
 * Dependencies: kernel32.dll only (no C runtime: built with -nostdlib), so
 * that the oracle itself never puts a runtime DLL into the loaded-module
 * list it is observing. Placed as python.exe in a scenario tree, its
 * directory is the application directory, as python.exe's is for torch.
 *
 * Sources: torch/__init__.py (_load_dll_libraries); CPython
 * Python/dynload_win.c and Lib/ctypes/__init__.py; learn.microsoft.com
 * "LoadLibraryExW", "AddDllDirectory", "Dynamic-link library search order",
 * "Parsing C command-line arguments".
 *
 * Exit status: 0 when every binary loaded, 1 when one did not, 2 on usage
 * errors or when the output file cannot be written.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>

#ifndef LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR 0x00000100
#endif
#ifndef LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
#define LOAD_LIBRARY_SEARCH_DEFAULT_DIRS 0x00001000
#endif

#define TORCH_FLAGS 0x00001100u /* DLL_LOAD_DIR | DEFAULT_DIRS, torch's value */
#define PYD_FLAGS (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)
#define MAX_ARGS 4096

/* ---- freestanding helpers (no C runtime) -------------------------------- */

/* The compiler may emit calls to these for struct copies and zeroing. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

static void *xalloc(size_t n)
{
	void *p = HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, n ? n : 1);
	if (!p)
		ExitProcess(3);
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	void *q = p ? HeapReAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, p, n) : xalloc(n);
	if (!q)
		ExitProcess(3);
	return q;
}

static size_t wlen(const WCHAR *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static int weq(const WCHAR *a, const char *b)
{
	while (*a && *b && *a == (WCHAR)(unsigned char)*b)
		a++, b++;
	return *a == 0 && *b == 0;
}

static WCHAR wlower(WCHAR c)
{
	return c >= 'A' && c <= 'Z' ? (WCHAR)(c + 32) : c;
}

/* A growable UTF-16 buffer. */
struct wbuf {
	WCHAR *s;
	size_t len, cap;
};

static void wbuf_addn(struct wbuf *b, const WCHAR *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap * sizeof(WCHAR));
	}
	for (size_t i = 0; i < n; i++)
		b->s[b->len++] = s[i];
	b->s[b->len] = 0;
}

static void wbuf_add(struct wbuf *b, const WCHAR *s)
{
	wbuf_addn(b, s, wlen(s));
}

/* A growable byte buffer for UTF-8 output. */
struct buf {
	char *s;
	size_t len, cap;
};

static void buf_addn(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	for (size_t i = 0; i < n; i++)
		b->s[b->len++] = s[i];
	b->s[b->len] = 0;
}

static void buf_add(struct buf *b, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	buf_addn(b, s, n);
}

static void buf_addu(struct buf *b, unsigned long v)
{
	char tmp[24];
	int i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_addn(b, tmp + i, sizeof(tmp) - i);
}

static void buf_addhex(struct buf *b, unsigned long v)
{
	char tmp[24];
	int i = sizeof(tmp);
	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	buf_add(b, "0x");
	buf_addn(b, tmp + i, sizeof(tmp) - i);
}

/* Appends s as a JSON string (UTF-8, quotes, backslashes and controls escaped). */
static void buf_add_json(struct buf *b, const WCHAR *s)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, s, -1, NULL, 0, NULL, NULL);
	char *u = xalloc(n > 0 ? (size_t)n : 1);
	if (n > 0)
		WideCharToMultiByte(CP_UTF8, 0, s, -1, u, n, NULL, NULL);
	buf_add(b, "\"");
	for (char *p = u; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			buf_addn(b, e, 2);
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15] };
			buf_addn(b, e, 6);
		} else {
			buf_addn(b, (char *)&c, 1);
		}
	}
	buf_add(b, "\"");
	HeapFree(GetProcessHeap(), 0, u);
}

/* ---- output -------------------------------------------------------------- */

static HANDLE out_file = INVALID_HANDLE_VALUE;

static void write_handle(HANDLE h, const char *s, size_t n)
{
	DWORD done;
	while (n) {
		if (!WriteFile(h, s, n > 0x10000 ? 0x10000 : (DWORD)n, &done, NULL) || !done)
			return;
		s += done;
		n -= done;
	}
}

static void err_print(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	write_handle(GetStdHandle(STD_ERROR_HANDLE), s, n);
}

/*
 * "@@oracle begin N tid=XXXX" / "@@oracle end N E" on stderr: see the design
 * comment. The thread id (hex, at least 4 digits) is the one Wine prefixes
 * its diagnostics with, so lines other processes write to the same stream
 * can be told apart.
 */
static void marker(const char *what, unsigned long n, int with_error, unsigned long error)
{
	struct buf b = { 0 };
	buf_add(&b, "@@oracle ");
	buf_add(&b, what);
	buf_add(&b, " ");
	buf_addu(&b, n);
	if (with_error) {
		buf_add(&b, " ");
		buf_addu(&b, error);
	} else {
		unsigned long tid = GetCurrentThreadId();
		char hex[16];
		int i = 0;
		for (int shift = 28; shift >= 0; shift -= 4)
			if ((tid >> shift) & 15 || shift < 16 || i)
				hex[i++] = "0123456789abcdef"[(tid >> shift) & 15];
		buf_add(&b, " tid=");
		buf_addn(&b, hex, (size_t)i);
	}
	buf_add(&b, "\n");
	write_handle(GetStdHandle(STD_ERROR_HANDLE), b.s, b.len);
	HeapFree(GetProcessHeap(), 0, b.s);
}

/* ---- command line ---------------------------------------------------------- */

/*
 * Splits a command line as the Microsoft C runtime does ("Parsing C
 * command-line arguments"): whitespace separates arguments; "..." groups;
 * 2n backslashes before a quote give n backslashes and a delimiter, 2n+1 give
 * n backslashes and a literal quote; "" inside quotes is a literal quote.
 * The program name (first argument) ends at the first whitespace outside
 * quotes and takes no escapes.
 */
static int split_cmdline(const WCHAR *p, WCHAR **argv, int max)
{
	int argc = 0;
	struct wbuf a = { 0 };

	/* program name */
	int inq = 0;
	while (*p && (inq || (*p != ' ' && *p != '\t'))) {
		if (*p == '"')
			inq = !inq;
		else
			wbuf_addn(&a, p, 1);
		p++;
	}
	argv[argc++] = a.s ? a.s : xalloc(sizeof(WCHAR));

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || argc >= max)
			break;
		struct wbuf b = { 0 };
		wbuf_addn(&b, L"", 0);
		inq = 0;
		while (*p && (inq || (*p != ' ' && *p != '\t'))) {
			if (*p == '\\') {
				size_t n = 0;
				while (*p == '\\')
					n++, p++;
				if (*p == '"') {
					for (size_t i = 0; i < n / 2; i++)
						wbuf_addn(&b, L"\\", 1);
					if (n % 2) {
						wbuf_addn(&b, L"\"", 1);
						p++;
					}
				} else {
					for (size_t i = 0; i < n; i++)
						wbuf_addn(&b, L"\\", 1);
				}
			} else if (*p == '"') {
				if (inq && p[1] == '"') {
					wbuf_addn(&b, L"\"", 1);
					p += 2;
				} else {
					inq = !inq;
					p++;
				}
			} else {
				wbuf_addn(&b, p++, 1);
			}
		}
		argv[argc++] = b.s;
	}
	return argc;
}

/* Appends the lines of a UTF-8 response file to argv; -1 if unreadable. */
static int read_response_file(const WCHAR *path, WCHAR **argv, int *argc, int max)
{
	HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return -1;
	LARGE_INTEGER sz;
	if (!GetFileSizeEx(h, &sz) || sz.QuadPart > (1 << 24)) {
		CloseHandle(h);
		return -1;
	}
	char *data = xalloc((size_t)sz.QuadPart + 1);
	DWORD got = 0;
	if (sz.QuadPart && !ReadFile(h, data, (DWORD)sz.QuadPart, &got, NULL)) {
		CloseHandle(h);
		return -1;
	}
	CloseHandle(h);
	char *p = data;
	if (got >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
		p += 3;
	char *end = data + got;
	while (p < end && *argc < max) {
		char *e = p;
		while (e < end && *e != '\n')
			e++;
		char *l = e;
		if (l > p && l[-1] == '\r')
			l--;
		if (l > p) {
			int n = MultiByteToWideChar(CP_UTF8, 0, p, (int)(l - p), NULL, 0);
			WCHAR *w = xalloc(((size_t)n + 1) * sizeof(WCHAR));
			MultiByteToWideChar(CP_UTF8, 0, p, (int)(l - p), w, n);
			argv[(*argc)++] = w;
		}
		p = e + 1;
	}
	HeapFree(GetProcessHeap(), 0, data);
	return 0;
}

static unsigned long parse_ulong(const WCHAR *s, int *ok)
{
	unsigned long v = 0, base = 10;
	*ok = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	if (!*s)
		return 0;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && wlower(*s) >= 'a' && wlower(*s) <= 'f')
			d = wlower(*s) - 'a' + 10;
		else
			return 0;
		v = v * base + d;
	}
	*ok = 1;
	return v;
}

/* ---- the loaded-module list ------------------------------------------------ */

struct modset {
	HMODULE *m;
	DWORD n;
};

static void modset_snapshot(struct modset *s)
{
	DWORD cap = 256, need = 0;
	for (;;) {
		s->m = xrealloc(s->m, cap * sizeof(HMODULE));
		if (!K32EnumProcessModules(GetCurrentProcess(), s->m, cap * sizeof(HMODULE), &need)) {
			s->n = 0;
			return;
		}
		if (need <= cap * sizeof(HMODULE))
			break;
		cap = need / sizeof(HMODULE) + 16;
	}
	s->n = need / sizeof(HMODULE);
}

/* Appends ,"loaded":[...] with the modules in `after` that are not in `before`. */
static void add_loaded(struct buf *b, const struct modset *before, const struct modset *after)
{
	WCHAR *name = xalloc(32768 * sizeof(WCHAR));
	int first = 1;
	buf_add(b, ",\"loaded\":[");
	for (DWORD i = 0; i < after->n; i++) {
		int seen = 0;
		for (DWORD j = 0; j < before->n && !seen; j++)
			seen = after->m[i] == before->m[j];
		if (seen)
			continue;
		DWORD n = GetModuleFileNameW(after->m[i], name, 32768);
		if (!n || n >= 32768)
			continue;
		if (!first)
			buf_add(b, ",");
		first = 0;
		buf_add_json(b, name);
	}
	buf_add(b, "]");
	HeapFree(GetProcessHeap(), 0, name);
}

/* ---- one load ---------------------------------------------------------------- */

struct result {
	unsigned long order;
	const char *kind;  /* "vc_probe", "dll", "pyd", "probe" */
	const char *stage; /* NULL for probes */
	const WCHAR *path;
	unsigned long flags;
	DWORD error;
	int has_first;
	DWORD first_error;
};

static void emit(const struct result *r, const struct modset *before, const struct modset *after)
{
	struct buf b = { 0 };
	buf_add(&b, "{\"order\":");
	buf_addu(&b, r->order);
	buf_add(&b, ",\"kind\":\"");
	buf_add(&b, r->kind);
	buf_add(&b, "\",\"path\":");
	buf_add_json(&b, r->path);
	if (r->stage) {
		buf_add(&b, ",\"stage\":\"");
		buf_add(&b, r->stage);
		buf_add(&b, "\"");
	}
	buf_add(&b, ",\"flags\":\"");
	buf_addhex(&b, r->flags);
	buf_add(&b, "\",\"error\":");
	buf_addu(&b, r->error);
	if (r->has_first) {
		buf_add(&b, ",\"first_error\":");
		buf_addu(&b, r->first_error);
	}
	add_loaded(&b, before, after);
	buf_add(&b, "}\n");
	write_handle(out_file, b.s, b.len);
	HeapFree(GetProcessHeap(), 0, b.s);
}

/*
 * LoadLibraryExW(path, NULL, flags), or LoadLibraryW(path) when plain is set;
 * returns 0 or GetLastError(). The module is never freed (see the design note).
 */
static DWORD load(const WCHAR *path, unsigned long flags, int plain)
{
	HMODULE h;
	SetLastError(0);
	h = plain ? LoadLibraryW(path) : LoadLibraryExW(path, NULL, (DWORD)flags);
	if (h)
		return 0;
	DWORD e = GetLastError();
	return e ? e : ERROR_GEN_FAILURE; /* a failure must never read as "loaded" */
}

/* ---- mode torch -------------------------------------------------------------- */

/* One step of a package's import: AddDllDirectory(DIR), PATH = DIR;PATH, or LoadLibraryExW(FILE, 0x1100). */
enum step_kind { STEP_DLL_DIR, STEP_PATH_PREPEND, STEP_LOAD };
struct step {
	enum step_kind kind;
	const WCHAR *path;
};

struct opts {
	const WCHAR *out;
	const WCHAR *torch_dir;
	const WCHAR **dll_paths;
	int n_dll_paths;
	const WCHAR **pyds;
	int n_pyds;
	const WCHAR **paths; /* probe mode */
	int n_paths;
	int vc_probe;
	int stop_at_first_error;
	unsigned long flags;
	int has_default_dirs;
	unsigned long default_dirs;
	/* the packages imported before torch (--first*) and the extensions after it (--ext*), in argument order */
	struct step *first, *ext;
	int n_first, n_ext;
	const WCHAR *dll_directory;   /* --set-dll-directory */
	const WCHAR **launcher_loads; /* --launcher-load */
	int n_launcher_loads;
};

static int has_dll_suffix(const WCHAR *name)
{
	size_t n = wlen(name);
	return n >= 4 && name[n - 4] == '.' && wlower(name[n - 3]) == 'd' && wlower(name[n - 2]) == 'l' &&
	       wlower(name[n - 1]) == 'l';
}

/* torch\lib\*.dll in FindFirstFileW order, as glob.glob(os.path.join(lib, "*.dll")) sees it. */
static WCHAR **list_torch_dlls(const WCHAR *torch_dir, int *count)
{
	struct wbuf pat = { 0 };
	WIN32_FIND_DATAW fd;
	WCHAR **list = NULL;
	int n = 0, cap = 0;

	wbuf_add(&pat, torch_dir);
	wbuf_add(&pat, L"\\lib\\*");
	HANDLE h = FindFirstFileW(pat.s, &fd);
	if (h != INVALID_HANDLE_VALUE) {
		do {
			if (fd.cFileName[0] == '.' || !has_dll_suffix(fd.cFileName))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				list = xrealloc(list, (size_t)cap * sizeof(*list));
			}
			struct wbuf p = { 0 };
			wbuf_add(&p, torch_dir);
			wbuf_add(&p, L"\\lib\\");
			wbuf_add(&p, fd.cFileName);
			list[n++] = p.s;
		} while (FindNextFileW(h, &fd));
		FindClose(h);
	}
	*count = n;
	return list;
}

/* PATH = ";".join(dll_paths + [PATH]), as torch does once before its fallback. */
static void prepend_dll_paths_to_path(const struct opts *o)
{
	struct wbuf p = { 0 };
	for (int i = 0; i < o->n_dll_paths; i++) {
		wbuf_add(&p, o->dll_paths[i]);
		wbuf_add(&p, L";");
	}
	DWORD n = GetEnvironmentVariableW(L"PATH", NULL, 0);
	if (n) {
		WCHAR *old = xalloc((size_t)n * sizeof(WCHAR));
		GetEnvironmentVariableW(L"PATH", old, n);
		wbuf_add(&p, old);
		HeapFree(GetProcessHeap(), 0, old);
	} else if (p.len) {
		p.s[--p.len] = 0; /* no trailing ';' */
	}
	SetEnvironmentVariableW(L"PATH", p.s ? p.s : L"");
}

static void path_prepend(const WCHAR *dir)
{
	struct wbuf p = { 0 };
	DWORD n = GetEnvironmentVariableW(L"PATH", NULL, 0);
	wbuf_add(&p, dir);
	wbuf_add(&p, L";");
	if (n) {
		WCHAR *old = xalloc((size_t)n * sizeof(WCHAR));
		GetEnvironmentVariableW(L"PATH", old, n);
		wbuf_add(&p, old);
		HeapFree(GetProcessHeap(), 0, old);
	}
	SetEnvironmentVariableW(L"PATH", p.s);
}

/*
 * A package's import as a list of steps (the procedure the checker models in
 * checker/loader/extload.c): its folders added, then its binaries loaded as
 * ctypes.CDLL and CPython both do it, LoadLibraryExW(path, 0x1100).
 */
static int run_steps(const struct step *st, int n, const char *kind, unsigned long *order)
{
	struct modset before = { 0 }, after = { 0 };
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (st[i].kind == STEP_DLL_DIR) {
			AddDllDirectory(st[i].path);
			continue;
		}
		if (st[i].kind == STEP_PATH_PREPEND) {
			path_prepend(st[i].path);
			continue;
		}
		struct result r = { .order = *order, .kind = kind, .stage = kind, .path = st[i].path,
				     .flags = PYD_FLAGS };
		UINT old = SetErrorMode(SEM_FAILCRITICALERRORS);
		modset_snapshot(&before);
		marker("begin", *order, 0, 0);
		r.error = load(st[i].path, PYD_FLAGS, 0);
		marker("end", *order, 1, r.error);
		modset_snapshot(&after);
		SetErrorMode(old);
		emit(&r, &before, &after);
		(*order)++;
		failed |= r.error != 0;
	}
	return failed;
}

static int run_torch(const struct opts *o)
{
	struct modset before = { 0 }, after = { 0 };
	unsigned long order = 0;
	int failed = 0, path_patched = 0;

	SetErrorMode(SEM_FAILCRITICALERRORS);
	if (o->dll_directory && !SetDllDirectoryW(o->dll_directory))
		err_print("torchload_oracle: SetDllDirectoryW failed\n");
	for (int i = 0; i < o->n_launcher_loads; i++)
		if (!LoadLibraryExW(o->launcher_loads[i], NULL, LOAD_WITH_ALTERED_SEARCH_PATH))
			err_print("torchload_oracle: a launcher's load failed\n");
	run_steps(o->first, o->n_first, "first", &order); /* packages imported before torch */

	for (int i = 0; i < o->n_dll_paths; i++) {
		if (!AddDllDirectory(o->dll_paths[i])) {
			struct buf b = { 0 };
			buf_add(&b, "{\"event\":\"add_dll_directory_failed\",\"path\":");
			buf_add_json(&b, o->dll_paths[i]);
			buf_add(&b, ",\"error\":");
			buf_addu(&b, GetLastError());
			buf_add(&b, "}\n");
			write_handle(out_file, b.s, b.len);
		}
	}

	if (o->vc_probe) {
		static const WCHAR *const runtimes[] = { L"vcruntime140.dll", L"msvcp140.dll", L"vcruntime140_1.dll" };
		for (int i = 0; i < 3; i++) {
			struct result r = { .order = order, .kind = "vc_probe", .stage = "vc_probe",
					     .path = runtimes[i], .flags = LOAD_LIBRARY_SEARCH_DEFAULT_DIRS };
			modset_snapshot(&before);
			marker("begin", order, 0, 0);
			r.error = load(runtimes[i], r.flags, 0);
			marker("end", order, 1, r.error);
			modset_snapshot(&after);
			emit(&r, &before, &after);
			order++;
			if (r.error)
				break; /* torch's try block ends at the first OSError */
		}
	}

	if (o->torch_dir) {
		int n = 0;
		WCHAR **dlls = list_torch_dlls(o->torch_dir, &n);
		for (int i = 0; i < n; i++) {
			struct result r = { .order = order, .kind = "dll", .stage = "add_dll_directory",
					     .path = dlls[i], .flags = TORCH_FLAGS };
			modset_snapshot(&before);
			marker("begin", order, 0, 0);
			r.error = load(dlls[i], TORCH_FLAGS, 0);
			if (r.error == ERROR_MOD_NOT_FOUND) {
				if (!path_patched)
					prepend_dll_paths_to_path(o);
				path_patched = 1;
				r.stage = "path_fallback";
				r.has_first = 1;
				r.first_error = r.error;
				r.flags = 0;
				r.error = load(dlls[i], 0, 1);
			}
			marker("end", order, 1, r.error);
			modset_snapshot(&after);
			emit(&r, &before, &after);
			order++;
			if (r.error) {
				failed = 1;
				if (o->stop_at_first_error)
					return 1;
			}
		}
	}

	for (int i = 0; i < o->n_pyds; i++) {
		struct result r = { .order = order, .kind = "pyd", .stage = "cpython", .path = o->pyds[i],
				     .flags = PYD_FLAGS };
		UINT old = SetErrorMode(SEM_FAILCRITICALERRORS);
		modset_snapshot(&before);
		marker("begin", order, 0, 0);
		r.error = load(o->pyds[i], PYD_FLAGS, 0);
		marker("end", order, 1, r.error);
		modset_snapshot(&after);
		SetErrorMode(old);
		emit(&r, &before, &after);
		order++;
		if (r.error) {
			failed = 1;
			if (o->stop_at_first_error)
				return 1;
		}
	}
	failed |= run_steps(o->ext, o->n_ext, "extension", &order); /* the extensions, after torch */
	return failed;
}

/* ---- mode probe -------------------------------------------------------------- */

static int run_probe(const struct opts *o)
{
	struct modset before = { 0 }, after = { 0 };
	int failed = 0;

	if (o->has_default_dirs && !SetDefaultDllDirectories((DWORD)o->default_dirs)) {
		err_print("torchload_oracle: SetDefaultDllDirectories failed\n");
		return 2;
	}
	for (int i = 0; i < o->n_dll_paths; i++)
		if (!AddDllDirectory(o->dll_paths[i])) {
			err_print("torchload_oracle: AddDllDirectory failed\n");
			return 2;
		}
	for (int i = 0; i < o->n_paths; i++) {
		struct result r = { .order = (unsigned long)i, .kind = "probe", .path = o->paths[i], .flags = o->flags };
		UINT old = SetErrorMode(SEM_FAILCRITICALERRORS);
		modset_snapshot(&before);
		marker("begin", (unsigned long)i, 0, 0);
		r.error = load(o->paths[i], o->flags, 0);
		marker("end", (unsigned long)i, 1, r.error);
		modset_snapshot(&after);
		SetErrorMode(old);
		emit(&r, &before, &after);
		failed |= r.error != 0;
	}
	return failed;
}

/* The first output line: the PATH the process started with (the harness hands it to the checker). */
static void emit_env(void)
{
	struct buf b = { 0 };
	DWORD n = GetEnvironmentVariableW(L"PATH", NULL, 0);
	WCHAR *path = xalloc(((size_t)n + 1) * sizeof(WCHAR));
	if (n)
		GetEnvironmentVariableW(L"PATH", path, n);
	buf_add(&b, "{\"event\":\"env\",\"PATH\":");
	buf_add_json(&b, path);
	buf_add(&b, "}\n");
	write_handle(out_file, b.s, b.len);
	HeapFree(GetProcessHeap(), 0, path);
	HeapFree(GetProcessHeap(), 0, b.s);
}

/* ---- main ---------------------------------------------------------------------- */

static const char usage[] =
	"usage: torchload_oracle torch --out FILE [--torch-dir DIR] [--dll-path DIR]...\n"
	"                               [--pyd FILE]... [--no-vc-probe] [--stop-at-first-error]\n"
	"                               [--first-dll-path DIR | --first-path-prepend DIR | --first FILE]...\n"
	"                               [--ext-dll-path DIR | --ext FILE]...\n"
	"                               [--set-dll-directory DIR] [--launcher-load FILE]...\n"
	"       torchload_oracle probe --out FILE [--flags N] [--add-dll-dir DIR]...\n"
	"                               [--set-default-dirs N] PATH...\n"
	"  An argument @FILE is replaced by FILE's lines (UTF-8, one argument per line).\n";

static int main_w(int argc, WCHAR **argv)
{
	struct opts o = { 0 };
	int probe, ok;

	if (argc < 2)
		goto bad;
	if (weq(argv[1], "torch"))
		probe = 0;
	else if (weq(argv[1], "probe"))
		probe = 1;
	else
		goto bad;
	o.vc_probe = 1;
	o.dll_paths = xalloc((size_t)argc * sizeof(WCHAR *));
	o.pyds = xalloc((size_t)argc * sizeof(WCHAR *));
	o.paths = xalloc((size_t)argc * sizeof(WCHAR *));
	o.first = xalloc((size_t)argc * sizeof(struct step));
	o.ext = xalloc((size_t)argc * sizeof(struct step));
	o.launcher_loads = xalloc((size_t)argc * sizeof(WCHAR *));
	for (int i = 2; i < argc; i++) {
		const WCHAR *a = argv[i];
		int has_val = i + 1 < argc;
		if (weq(a, "--out") && has_val)
			o.out = argv[++i];
		else if (!probe && weq(a, "--torch-dir") && has_val)
			o.torch_dir = argv[++i];
		else if ((weq(a, "--dll-path") || weq(a, "--add-dll-dir")) && has_val)
			o.dll_paths[o.n_dll_paths++] = argv[++i];
		else if (!probe && weq(a, "--pyd") && has_val)
			o.pyds[o.n_pyds++] = argv[++i];
		else if (!probe && weq(a, "--first-dll-path") && has_val)
			o.first[o.n_first++] = (struct step){ STEP_DLL_DIR, argv[++i] };
		else if (!probe && weq(a, "--first-path-prepend") && has_val)
			o.first[o.n_first++] = (struct step){ STEP_PATH_PREPEND, argv[++i] };
		else if (!probe && weq(a, "--first") && has_val)
			o.first[o.n_first++] = (struct step){ STEP_LOAD, argv[++i] };
		else if (!probe && weq(a, "--ext-dll-path") && has_val)
			o.ext[o.n_ext++] = (struct step){ STEP_DLL_DIR, argv[++i] };
		else if (!probe && weq(a, "--ext") && has_val)
			o.ext[o.n_ext++] = (struct step){ STEP_LOAD, argv[++i] };
		else if (!probe && weq(a, "--set-dll-directory") && has_val)
			o.dll_directory = argv[++i];
		else if (!probe && weq(a, "--launcher-load") && has_val)
			o.launcher_loads[o.n_launcher_loads++] = argv[++i];
		else if (!probe && weq(a, "--no-vc-probe"))
			o.vc_probe = 0;
		else if (!probe && weq(a, "--stop-at-first-error"))
			o.stop_at_first_error = 1;
		else if (probe && weq(a, "--flags") && has_val) {
			o.flags = parse_ulong(argv[++i], &ok);
			if (!ok)
				goto bad;
		} else if (probe && weq(a, "--set-default-dirs") && has_val) {
			o.default_dirs = parse_ulong(argv[++i], &ok);
			o.has_default_dirs = 1;
			if (!ok)
				goto bad;
		} else if (probe && a[0] != '-')
			o.paths[o.n_paths++] = a;
		else
			goto bad;
	}
	if (!o.out)
		goto bad;
	out_file = CreateFileW(o.out, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	if (out_file == INVALID_HANDLE_VALUE) {
		err_print("torchload_oracle: cannot create the output file\n");
		return 2;
	}
	emit_env();
	int rc = probe ? run_probe(&o) : run_torch(&o);
	CloseHandle(out_file);
	return rc;
bad:
	err_print(usage);
	return 2;
}

/* The entry point (linked with -e oracle_start; there is no C runtime). */
void __stdcall oracle_start(void);
void __stdcall oracle_start(void)
{
	WCHAR **argv = xalloc(MAX_ARGS * sizeof(WCHAR *));
	WCHAR **raw = xalloc(MAX_ARGS * sizeof(WCHAR *));
	int n = split_cmdline(GetCommandLineW(), raw, MAX_ARGS), argc = 0;

	for (int i = 0; i < n && argc < MAX_ARGS; i++) {
		if (i > 0 && raw[i][0] == '@') {
			if (read_response_file(raw[i] + 1, argv, &argc, MAX_ARGS)) {
				err_print("torchload_oracle: cannot read the response file\n");
				ExitProcess(2);
			}
		} else {
			argv[argc++] = raw[i];
		}
	}
	ExitProcess((UINT)main_w(argc, argv));
}
