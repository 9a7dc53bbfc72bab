/*
 * os_win32: the OS layer on Windows. Paths arrive as UTF-8 and are converted
 * to UTF-16 for the W APIs, so non-ASCII user names and folders work (the
 * ANSI APIs would mangle them). File mappings are read-only views: a 1 GiB
 * DLL costs only the pages the PE reader touches.
 */
#ifdef _WIN32
#include "util/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <shellapi.h>
#include <psapi.h>

static wchar_t *to_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w;
	if (n <= 0)
		return NULL;
	w = xmalloc((size_t)n * sizeof(wchar_t));
	MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
	return w;
}

static char *from_wide(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s;
	if (n <= 0)
		return xstrdup("");
	s = xmalloc((size_t)n);
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

static int win_err(struct err *err, const char *what, const char *path)
{
	DWORD code = GetLastError();
	wchar_t wbuf[512];
	char *msg;
	if (!FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0,
			    wbuf, 512, NULL))
		wbuf[0] = 0;
	msg = from_wide(wbuf);
	msg[strcspn(msg, "\r\n")] = '\0';
	err_set(err, "%s %s: %s (error %lu)", what, path, msg, (unsigned long)code);
	if (err)
		err->code = (int)code;
	free(msg);
	return -1;
}

void os_init(int *argc, char ***argv)
{
	int n, i;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	char **v;
	if (!w)
		return;
	v = xcalloc((size_t)n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		v[i] = from_wide(w[i]);
	LocalFree(w);
	*argc = n;
	*argv = v; /* lives as long as the process */
	SetConsoleOutputCP(CP_UTF8);
}

int os_map_file(struct os_map *m, const char *path, struct err *err)
{
	wchar_t *w = to_wide(path);
	HANDLE f, map;
	LARGE_INTEGER size;
	void *p;

	m->data = NULL;
	m->size = 0;
	m->priv = NULL;
	if (!w)
		return err_set(err, "invalid UTF-8 in path %s", path);
	f = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (f == INVALID_HANDLE_VALUE)
		return win_err(err, "cannot open", path);
	if (!GetFileSizeEx(f, &size)) {
		win_err(err, "cannot stat", path);
		CloseHandle(f);
		return -1;
	}
	if (size.QuadPart == 0) {
		CloseHandle(f);
		return 0;
	}
	if ((unsigned long long)size.QuadPart > (unsigned long long)SIZE_MAX) {
		CloseHandle(f);
		return err_set(err, "%s is too large to map", path);
	}
	map = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
	CloseHandle(f);
	if (!map)
		return win_err(err, "cannot map", path);
	p = MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0);
	CloseHandle(map);
	if (!p)
		return win_err(err, "cannot map", path);
	m->data = p;
	m->size = (size_t)size.QuadPart;
	return 0;
}

int os_open_read(struct os_file *f, const char *path, struct err *err)
{
	wchar_t *w = to_wide(path);
	HANDLE h;
	LARGE_INTEGER size;
	f->h = (intptr_t)INVALID_HANDLE_VALUE;
	f->size = 0;
	if (!w)
		return err_set(err, "invalid UTF-8 in path %s", path);
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_err(err, "cannot open", path);
	if (GetFileType(h) != FILE_TYPE_DISK || !GetFileSizeEx(h, &size)) {
		CloseHandle(h);
		return err_set(err, "%s: not a regular file", path);
	}
	f->h = (intptr_t)h;
	f->size = (uint64_t)size.QuadPart;
	return 0;
}

int os_pread(const struct os_file *f, void *buf, size_t n, uint64_t off, size_t *got, struct err *err)
{
	size_t done = 0;
	*got = 0;
	while (done < n) {
		OVERLAPPED ov;
		DWORD want = n - done > 0x10000000u ? 0x10000000u : (DWORD)(n - done), r = 0;
		uint64_t at = off + done;
		memset(&ov, 0, sizeof(ov));
		ov.Offset = (DWORD)(at & 0xffffffffu);
		ov.OffsetHigh = (DWORD)(at >> 32);
		if (!ReadFile((HANDLE)f->h, (char *)buf + done, want, &r, &ov)) {
			if (GetLastError() == ERROR_HANDLE_EOF)
				break;
			return win_err(err, "cannot read", "file");
		}
		if (!r)
			break;
		done += r;
	}
	*got = done;
	return 0;
}

void os_close_file(struct os_file *f)
{
	if ((HANDLE)f->h != INVALID_HANDLE_VALUE)
		CloseHandle((HANDLE)f->h);
	f->h = (intptr_t)INVALID_HANDLE_VALUE;
}

int os_read_small_file(const char *path, size_t max, struct strbuf *out, struct err *err)
{
	struct os_stat st;
	if (os_lstat(path, &st) || st.type != OS_FILE)
		return 1;
	if (st.size > (uint64_t)max)
		return 2;
	return os_read_file(path, max, out, err) ? -1 : 0;
}

int os_dir_open(struct os_dir *d, const char *path)
{
	struct os_stat st;
	memset(d, 0, sizeof(*d));
	if (os_lstat(path, &st) || st.type != OS_DIR)
		return -1;
	d->h = -1;
	d->path = xstrdup(path);
	return 0;
}

void os_dir_close(struct os_dir *d)
{
	free(d->path);
	memset(d, 0, sizeof(*d));
}

int os_lstat_at(const struct os_dir *d, const char *rel, struct os_stat *st)
{
	char *p;
	int r;
	st->type = OS_NONE;
	st->size = 0;
	if (!d->path)
		return 0;
	p = xasprintf("%s/%s", d->path, rel);
	r = os_lstat(p, st);
	free(p);
	return r;
}

int os_read_small_file_at(const struct os_dir *d, const char *rel, size_t max, struct strbuf *out, struct err *err)
{
	char *p;
	int r;
	if (!d->path)
		return 1;
	p = xasprintf("%s/%s", d->path, rel);
	r = os_read_small_file(p, max, out, err);
	free(p);
	return r;
}

void os_unmap(struct os_map *m)
{
	if (m->data)
		UnmapViewOfFile((void *)m->data);
	m->data = NULL;
	m->size = 0;
}

void os_drop_pages(const void *p, size_t len)
{
	/* removes the pages from the working set; they fault back in from the file */
	if (p && len)
		VirtualUnlock((LPVOID)p, len);
}

int os_memfile(const void *data, size_t len, char **path, int *fd, struct err *err)
{
	(void)data;
	(void)len;
	(void)path;
	(void)fd;
	return err_set(err, "files in memory are not supported on Windows yet");
}

int os_memfile_new(char **path, int *fd, struct err *err)
{
	(void)path;
	(void)fd;
	return err_set(err, "files in memory need Linux's memfd_create");
}

int os_memfile_append(int fd, const void *data, size_t len, struct err *err)
{
	(void)fd;
	(void)data;
	(void)len;
	return err_set(err, "files in memory need Linux's memfd_create");
}

void os_memfile_close(int fd)
{
	(void)fd;
}

size_t os_resident_file_bytes(void)
{
	return (size_t)-1; /* not asked of the working set: callers drop the pages */
}

void os_stat(const char *path, struct os_stat *st)
{
	WIN32_FILE_ATTRIBUTE_DATA a;
	wchar_t *w = to_wide(path);
	st->type = OS_NONE;
	st->size = 0;
	if (!w)
		return;
	if (GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
		st->type = (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? OS_DIR : OS_FILE;
		st->size = ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow;
	}
	free(w);
}

int os_list_dir_types(const char *dir, struct strlist *names, struct strbuf *types, struct err *err)
{
	size_t n0 = names->n, i;
	if (os_list_dir(dir, names, err))
		return -1;
	for (i = n0; i < names->n; i++)
		strbuf_addch(types, (char)OS_NONE); /* os_lstat tells (a reparse point is not followed) */
	return 0;
}

int os_readlink(const char *path, struct strbuf *out)
{
	(void)path;
	(void)out;
	return -2; /* reparse data differs by kind (links, junctions, app links): the view asks os_realpath */
}

int os_lstat(const char *path, struct os_stat *st)
{
	WIN32_FILE_ATTRIBUTE_DATA a;
	wchar_t *w = to_wide(path);
	st->type = OS_NONE;
	st->size = 0;
	if (!w)
		return 0;
	/* attributes of the entry itself: a symbolic link or junction is a reparse point */
	if (GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
		if (a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
			free(w);
			return 1;
		}
		st->type = (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? OS_DIR : OS_FILE;
		st->size = ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow;
	}
	free(w);
	return 0;
}

int os_is_link(const char *path)
{
	wchar_t *w = to_wide(path);
	DWORD a;
	if (!w)
		return 0;
	a = GetFileAttributesW(w);
	free(w);
	return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT);
}

int os_list_dir(const char *dir, struct strlist *names, struct err *err)
{
	char *pat = xasprintf("%s\\*", dir);
	wchar_t *w = to_wide(pat);
	WIN32_FIND_DATAW fd;
	HANDLE h;
	free(pat);
	if (!w)
		return err_set(err, "invalid UTF-8 in path %s", dir);
	h = FindFirstFileW(w, &fd);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_err(err, "cannot list", dir);
	do {
		char *n;
		if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L".."))
			continue;
		n = from_wide(fd.cFileName);
		strlist_push_owned(names, n);
	} while (FindNextFileW(h, &fd));
	FindClose(h);
	return 0;
}

int os_read_file(const char *path, size_t max, struct strbuf *out, struct err *err)
{
	struct os_map m;
	if (os_map_file(&m, path, err))
		return -1;
	if (m.size > max) {
		os_unmap(&m);
		return err_set(err, "%s is larger than %zu bytes", path, max);
	}
	if (m.size)
		strbuf_add(out, m.data, m.size);
	os_unmap(&m);
	return 0;
}

int os_write_file_atomic(const char *path, const void *data, size_t len, struct err *err)
{
	/*
	 * As on POSIX: a temporary file in the target's folder under a name
	 * nobody can predict, created exclusively (CREATE_NEW fails on anything
	 * already there, a planted link included), then moved over the target.
	 */
	unsigned char rnd[8];
	char *tmp = NULL;
	wchar_t *wt = NULL, *wp = to_wide(path);
	HANDLE f;
	DWORD w;
	int rc = -1;
	if (os_random(rnd, sizeof(rnd), err))
		goto out;
	tmp = xasprintf("%s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", path, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5],
			rnd[6], rnd[7]);
	wt = to_wide(tmp);
	if (!wt || !wp) {
		err_set(err, "invalid UTF-8 in path %s", path);
		goto out;
	}
	f = CreateFileW(wt, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	if (f == INVALID_HANDLE_VALUE) {
		win_err(err, "cannot create", tmp);
		goto out;
	}
	while (len) {
		DWORD chunk = len > 0x40000000 ? 0x40000000 : (DWORD)len;
		if (!WriteFile(f, data, chunk, &w, NULL) || w == 0) {
			win_err(err, "cannot write", tmp);
			CloseHandle(f);
			DeleteFileW(wt);
			goto out;
		}
		data = (const char *)data + w;
		len -= w;
	}
	CloseHandle(f);
	if (!MoveFileExW(wt, wp, MOVEFILE_REPLACE_EXISTING)) {
		win_err(err, "cannot write", path);
		DeleteFileW(wt);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(wt);
	free(wp);
	return rc;
}

int os_append_file(const char *path, const void *data, size_t len, struct err *err)
{
	/*
	 * As on POSIX: never through a symbolic link or junction (the handle is
	 * opened on the reparse point itself and refused), only onto a regular
	 * file, one block in one loop, and cut back to the old size when a
	 * write fails part-way.
	 */
	wchar_t *w = to_wide(path);
	HANDLE f;
	BY_HANDLE_FILE_INFORMATION info;
	LARGE_INTEGER old, zero;
	DWORD n;
	if (!w)
		return err_set(err, "invalid UTF-8 in path %s", path);
	f = CreateFileW(w, FILE_APPEND_DATA | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_ALWAYS,
			FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (f == INVALID_HANDLE_VALUE)
		return win_err(err, "cannot open", path);
	if (!GetFileInformationByHandle(f, &info)) {
		win_err(err, "cannot stat", path);
		CloseHandle(f);
		return -1;
	}
	if (info.dwFileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY) ||
	    GetFileType(f) != FILE_TYPE_DISK) {
		CloseHandle(f);
		return err_set(err, "cannot append to %s: it is a link, a folder or a device, not a regular file", path);
	}
	zero.QuadPart = 0;
	if (!SetFilePointerEx(f, zero, &old, FILE_END)) {
		win_err(err, "cannot seek", path);
		CloseHandle(f);
		return -1;
	}
	while (len) {
		DWORD chunk = len > 0x40000000 ? 0x40000000 : (DWORD)len;
		if (!WriteFile(f, data, chunk, &n, NULL) || n == 0) {
			int cut;
			win_err(err, "cannot write", path);
			cut = SetFilePointerEx(f, old, NULL, FILE_BEGIN) && SetEndOfFile(f);
			CloseHandle(f);
			return err_prefix(err, "%s", cut ? "" : "(could not cut the file back: it may end in a partial block) ");
		}
		data = (const char *)data + n;
		len -= n;
	}
	CloseHandle(f);
	return 0;
}

const char *os_getenv(const char *name)
{
	static char *last;
	wchar_t *wn = to_wide(name);
	wchar_t *buf;
	DWORD n;
	free(last);
	last = NULL;
	if (!wn)
		return NULL;
	n = GetEnvironmentVariableW(wn, NULL, 0);
	if (!n) {
		free(wn);
		return NULL;
	}
	buf = xmalloc((size_t)n * sizeof(wchar_t));
	GetEnvironmentVariableW(wn, buf, n);
	free(wn);
	last = from_wide(buf);
	free(buf);
	return last;
}

int os_isatty(int fd)
{
	DWORD mode;
	HANDLE h = GetStdHandle(fd == 2 ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE);
	return h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode);
}

int os_term_columns(int fd)
{
	CONSOLE_SCREEN_BUFFER_INFO info;
	HANDLE h = GetStdHandle(fd == 2 ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE);
	if (h == INVALID_HANDLE_VALUE || !GetConsoleScreenBufferInfo(h, &info))
		return 0;
	return info.srWindow.Right - info.srWindow.Left + 1;
}

void os_sleep_ms(unsigned ms)
{
	Sleep(ms);
}

int os_random(void *buf, size_t n, struct err *err)
{
	/* RtlGenRandom (SystemFunction036) is in advapi32 on every Windows since XP. */
	typedef BOOLEAN(WINAPI * gen_fn)(PVOID, ULONG);
	HMODULE h = LoadLibraryExW(L"advapi32.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
	gen_fn gen = h ? (gen_fn)(void (*)(void))GetProcAddress(h, "SystemFunction036") : NULL;
	if (!gen || !gen(buf, (ULONG)n))
		return err_set(err, "no random source");
	return 0;
}

char *os_abspath(const char *path)
{
	wchar_t *w = to_wide(path), buf[32768];
	char *res;
	DWORD n;
	if (!w)
		return NULL;
	n = GetFullPathNameW(w, 32768, buf, NULL);
	free(w);
	if (n == 0 || n >= 32768)
		return NULL;
	res = from_wide(buf);
	return res;
}

char *os_absolute(const char *path)
{
	return os_abspath(path); /* GetFullPathNameW works by text: links are not resolved */
}

char *os_realpath(const char *path)
{
	wchar_t *w = to_wide(path), buf[32768];
	const wchar_t *p = buf;
	HANDLE h;
	DWORD n;
	if (!w)
		return NULL;
	/* FILE_FLAG_BACKUP_SEMANTICS opens folders too; the handle follows every link and junction */
	h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return NULL;
	n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= 32768)
		return NULL;
	if (!wcsncmp(p, L"\\\\?\\UNC\\", 8)) {
		p += 6;
		buf[6] = L'\\';
	} else if (!wcsncmp(p, L"\\\\?\\", 4)) {
		p += 4;
	}
	return from_wide(p);
}

char os_sep(void)
{
	return '\\';
}

static HKEY open_key(const char *subkey, int view, struct err *err, int *missing)
{
	wchar_t *w = to_wide(subkey);
	HKEY k;
	LONG rc;
	*missing = 0;
	if (!w) {
		err_set(err, "invalid UTF-8 in registry key");
		return NULL;
	}
	rc = RegOpenKeyExW(HKEY_LOCAL_MACHINE, w, 0,
			   KEY_READ | (view == 32 ? KEY_WOW64_32KEY : KEY_WOW64_64KEY), &k);
	free(w);
	if (rc == ERROR_FILE_NOT_FOUND) {
		*missing = 1;
		return NULL;
	}
	if (rc != ERROR_SUCCESS) {
		SetLastError((DWORD)rc);
		win_err(err, "cannot open registry key", subkey);
		return NULL;
	}
	return k;
}

int os_reg_get(const char *subkey, const char *value, int view, struct strbuf *out, struct err *err)
{
	int missing;
	HKEY k = open_key(subkey, view, err, &missing);
	wchar_t *wv;
	DWORD type, size = 0;
	LONG rc;
	BYTE *data;
	if (!k)
		return missing ? 1 : -1;
	wv = to_wide(value);
	rc = RegQueryValueExW(k, wv, NULL, &type, NULL, &size);
	if (rc == ERROR_FILE_NOT_FOUND) {
		free(wv);
		RegCloseKey(k);
		return 1;
	}
	if (rc != ERROR_SUCCESS || size > (1 << 20)) {
		free(wv);
		RegCloseKey(k);
		return err_set(err, "cannot read registry value %s\\%s", subkey, value);
	}
	data = xcalloc(1, size + sizeof(wchar_t));
	rc = RegQueryValueExW(k, wv, NULL, &type, data, &size);
	free(wv);
	RegCloseKey(k);
	if (rc != ERROR_SUCCESS) {
		free(data);
		return err_set(err, "cannot read registry value %s\\%s", subkey, value);
	}
	if (type == REG_SZ || type == REG_EXPAND_SZ) {
		char *s = from_wide((const wchar_t *)data);
		strbuf_adds(out, s);
		free(s);
	} else if (type == REG_DWORD && size >= 4) {
		DWORD d;
		memcpy(&d, data, 4);
		strbuf_addf(out, "%lu", (unsigned long)d);
	} else {
		free(data);
		return err_set(err, "registry value %s\\%s has an unexpected type %lu", subkey, value,
			       (unsigned long)type);
	}
	free(data);
	return 0;
}

int os_reg_subkeys(const char *subkey, int view, struct strlist *out, struct err *err)
{
	int missing;
	HKEY k = open_key(subkey, view, err, &missing);
	DWORD i;
	if (!k)
		return missing ? 1 : -1;
	for (i = 0;; i++) {
		wchar_t name[256];
		DWORD n = 256;
		LONG rc = RegEnumKeyExW(k, i, name, &n, NULL, NULL, NULL, NULL);
		if (rc != ERROR_SUCCESS)
			break;
		strlist_push_owned(out, from_wide(name));
	}
	RegCloseKey(k);
	return 0;
}

/*
 * One argument quoted so that CommandLineToArgvW and the CRT give it back
 * unchanged: backslashes are literal except before a quote, where they are
 * doubled (learn.microsoft.com "Parsing C++ command-line arguments").
 */
static void quote_arg(const wchar_t *a, wchar_t **out, size_t *len, size_t *alloc)
{
	size_t i, bs = 0, need = wcslen(a) * 2 + 3;
	int plain = a[0] != 0 && !wcspbrk(a, L" \t\n\v\"");
	ALLOC_GROW(*out, *len + need + 2, *alloc);
	if (*len)
		(*out)[(*len)++] = L' ';
	if (plain) {
		memcpy(*out + *len, a, wcslen(a) * sizeof(wchar_t));
		*len += wcslen(a);
		return;
	}
	(*out)[(*len)++] = L'"';
	for (i = 0;; i++) {
		size_t k;
		if (a[i] == L'\\') {
			bs++;
			continue;
		}
		if (a[i] == 0 || a[i] == L'"') {
			for (k = 0; k < bs * 2 + (a[i] == L'"'); k++)
				(*out)[(*len)++] = L'\\';
			if (a[i] == 0)
				break;
			(*out)[(*len)++] = L'"';
		} else {
			for (k = 0; k < bs; k++)
				(*out)[(*len)++] = L'\\';
			(*out)[(*len)++] = a[i];
		}
		bs = 0;
	}
	(*out)[(*len)++] = L'"';
}

int os_exec_sibling(const char *name, char **argv, int *status, struct err *err)
{
	wchar_t self[32768], *slash, *wname, *app, *cmdline = NULL;
	size_t len = 0, alloc = 0, i;
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	DWORD n = GetModuleFileNameW(NULL, self, 32768), code;

	if (n == 0 || n >= 32768)
		return win_err(err, "cannot find", "the running program");
	slash = wcsrchr(self, L'\\');
	if (!slash)
		return err_set(err, "cannot find the folder of the running program");
	slash[1] = 0;
	wname = to_wide(name);
	if (!wname)
		return err_set(err, "invalid UTF-8 in program name %s", name);
	app = xmalloc((wcslen(self) + wcslen(wname) + 5) * sizeof(wchar_t));
	wcscpy(app, self);
	wcscat(app, wname);
	wcscat(app, L".exe");
	free(wname);
	quote_arg(app, &cmdline, &len, &alloc);
	for (i = 1; argv[i]; i++) {
		wchar_t *w = to_wide(argv[i]);
		if (!w) {
			free(app);
			free(cmdline);
			return err_set(err, "invalid UTF-8 in argument %s", argv[i]);
		}
		quote_arg(w, &cmdline, &len, &alloc);
		free(w);
	}
	ALLOC_GROW(cmdline, len + 1, alloc);
	cmdline[len] = 0;
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	fflush(stdout);
	fflush(stderr);
	if (!CreateProcessW(app, cmdline, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
		char *u = from_wide(app);
		win_err(err, "cannot run", u);
		free(u);
		free(app);
		free(cmdline);
		return -1;
	}
	free(app);
	free(cmdline);
	WaitForSingleObject(pi.hProcess, INFINITE);
	if (!GetExitCodeProcess(pi.hProcess, &code))
		code = 2;
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	*status = (int)code;
	return 0;
}

/*
 * Reads what is in the pipe now without blocking (anonymous pipes have no
 * overlapped I/O; PeekNamedPipe says how much is there). Returns the bytes
 * read; closes the handle and sets it to NULL at end of file.
 */
static DWORD drain_pipe(HANDLE *h, struct strbuf *sb)
{
	char buf[65536];
	DWORD avail = 0, got, total = 0;
	while (*h) {
		if (!PeekNamedPipe(*h, NULL, 0, NULL, &avail, NULL)) {
			CloseHandle(*h); /* broken pipe: every writer is gone */
			*h = NULL;
			break;
		}
		if (!avail)
			break;
		if (!ReadFile(*h, buf, avail < sizeof(buf) ? avail : (DWORD)sizeof(buf), &got, NULL) || !got) {
			CloseHandle(*h);
			*h = NULL;
			break;
		}
		if (sb) /* capped: see os.h */
			strbuf_add_capped(sb, buf, got, OS_SPAWN_MAX_OUTPUT);
		total += got;
	}
	return total;
}

/* argv quoted into one command line as CommandLineToArgvW splits it; NULL (err set) on bad UTF-8. */
static wchar_t *command_line(const char *const *argv, struct err *err)
{
	wchar_t *cmdline = NULL;
	size_t len = 0, alloc = 0, i;
	for (i = 0; argv[i]; i++) {
		wchar_t *w = to_wide(argv[i]);
		if (!w) {
			free(cmdline);
			err_set(err, "invalid UTF-8 in argument %s", argv[i]);
			return NULL;
		}
		quote_arg(w, &cmdline, &len, &alloc);
		free(w);
	}
	ALLOC_GROW(cmdline, len + 1, alloc);
	cmdline[len] = 0;
	return cmdline;
}

/*
 * Reads the child's stdout and stderr (*ro, *re; closed and NULLed when they
 * break) until it has exited and nothing more is there to read, or until
 * timeout_ms after `start`, when its job (or the process alone) is ended.
 * 1 on a timeout, else 0.
 */
static int collect_output(HANDLE process, HANDLE job, HANDLE *ro, HANDLE *re, DWORD start, unsigned timeout_ms,
			  struct strbuf *out, struct strbuf *errout)
{
	int exited = 0;
	for (;;) {
		DWORD got = drain_pipe(ro, out) + drain_pipe(re, errout);
		if (exited && !got)
			break; /* exited and nothing more to read now (a grandchild may hold the pipe) */
		if (!*ro && !*re && exited)
			break;
		if (!exited && WaitForSingleObject(process, got ? 0 : 10) == WAIT_OBJECT_0) {
			exited = 1;
			continue; /* one more drain */
		}
		if (!exited && timeout_ms && GetTickCount() - start >= timeout_ms) {
			if (job)
				TerminateJobObject(job, 1);
			TerminateProcess(process, 1);
			WaitForSingleObject(process, 5000);
			return 1;
		}
	}
	return 0;
}

int os_spawn(const char *const *argv, const char *cwd, unsigned timeout_ms, struct strbuf *out,
	     struct strbuf *errout, long long *exit_code, struct err *err)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	HANDLE ro = NULL, wo = NULL, re = NULL, we = NULL, nul, job;
	wchar_t *cmdline = NULL, *wcwd = NULL;
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	DWORD start = GetTickCount(), code;
	int timed_out;

	*exit_code = -1;
	if (!(cmdline = command_line(argv, err)))
		return -1;
	if (cwd && !(wcwd = to_wide(cwd))) {
		free(cmdline);
		return err_set(err, "invalid UTF-8 in path %s", cwd);
	}
	if (!CreatePipe(&ro, &wo, &sa, 0) || !CreatePipe(&re, &we, &sa, 0)) {
		win_err(err, "cannot run", argv[0]);
		goto fail;
	}
	/* only the child's ends are inherited */
	SetHandleInformation(ro, HANDLE_FLAG_INHERIT, 0);
	SetHandleInformation(re, HANDLE_FLAG_INHERIT, 0);
	nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = nul;
	si.hStdOutput = wo;
	si.hStdError = we;
	if (!CreateProcessW(NULL, cmdline, NULL, NULL, TRUE, CREATE_SUSPENDED | CREATE_NO_WINDOW, NULL, wcwd,
			    &si, &pi)) {
		win_err(err, "cannot run", argv[0]);
		if (nul != INVALID_HANDLE_VALUE)
			CloseHandle(nul);
		goto fail;
	}
	if (nul != INVALID_HANDLE_VALUE)
		CloseHandle(nul);
	CloseHandle(wo);
	CloseHandle(we);
	wo = we = NULL;
	/* a job, so that a timeout also ends what the child started; best effort */
	job = CreateJobObjectW(NULL, NULL);
	if (job && !AssignProcessToJobObject(job, pi.hProcess)) {
		CloseHandle(job);
		job = NULL;
	}
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	timed_out = collect_output(pi.hProcess, job, &ro, &re, start, timeout_ms, out, errout);
	if (!timed_out && GetExitCodeProcess(pi.hProcess, &code))
		*exit_code = (long long)code;
	CloseHandle(pi.hProcess);
	if (job)
		CloseHandle(job);
	if (ro)
		CloseHandle(ro);
	if (re)
		CloseHandle(re);
	free(cmdline);
	free(wcwd);
	return timed_out ? 1 : 0;
fail:
	if (ro)
		CloseHandle(ro);
	if (wo)
		CloseHandle(wo);
	if (re)
		CloseHandle(re);
	if (we)
		CloseHandle(we);
	free(cmdline);
	free(wcwd);
	return -1;
}

char *os_self_path(struct err *err)
{
	wchar_t self[32768];
	DWORD n = GetModuleFileNameW(NULL, self, 32768);
	if (n == 0 || n >= 32768) {
		win_err(err, "cannot find", "the running program");
		return NULL;
	}
	return from_wide(self);
}

int os_setenv(const char *name, const char *value, struct err *err)
{
	wchar_t *wn = to_wide(name), *wv = to_wide(value);
	int rc = 0;
	if (!wn || !wv)
		rc = err_set(err, "invalid UTF-8 in %s", name);
	else if (!SetEnvironmentVariableW(wn, wv))
		rc = win_err(err, "cannot set", name);
	free(wn);
	free(wv);
	return rc;
}

int os_add_dll_directory(const char *dir, struct err *err)
{
	wchar_t *w = to_wide(dir);
	DLL_DIRECTORY_COOKIE c;
	if (!w)
		return err_set(err, "invalid UTF-8 in path %s", dir);
	c = AddDllDirectory(w);
	free(w);
	if (!c)
		return win_err(err, "AddDllDirectory", dir);
	return 0;
}

int os_load_library_ex(const char *path, unsigned flags, unsigned long *winerror, struct err *err)
{
	wchar_t *w = to_wide(path);
	UINT old;
	HMODULE h;
	DWORD e;
	*winerror = 0;
	if (!w)
		return err_set(err, "invalid UTF-8 in path %s", path);
	/*
	 * SEM_FAILCRITICALERRORS as CPython and torch load; SEM_NOGPFAULTERRORBOX
	 * too, so that a DllMain that crashes ends the helper at once instead of
	 * waiting on a Windows Error Reporting dialog until the timeout. Neither
	 * changes what the loader finds.
	 */
	old = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
	SetLastError(0);
	h = LoadLibraryExW(w, NULL, flags);
	e = GetLastError();
	SetErrorMode(old);
	free(w);
	if (h)
		return 0; /* never freed: it stays in the loaded-module list, as in python.exe */
	*winerror = e ? e : ERROR_GEN_FAILURE; /* a failure must never read as "loaded" */
	return 1;
}

int os_memory_status(struct os_memory *out)
{
	MEMORYSTATUSEX ms;
	PERFORMANCE_INFORMATION pi;
	PROCESS_MEMORY_COUNTERS_EX pmc;
	memset(out, 0, sizeof(*out));
	memset(&ms, 0, sizeof(ms));
	ms.dwLength = sizeof(ms);
	if (!GlobalMemoryStatusEx(&ms))
		return -1;
	out->physical = ms.ullTotalPhys;
	memset(&pi, 0, sizeof(pi));
	if (K32GetPerformanceInfo(&pi, sizeof(pi))) {
		out->commit_limit = (uint64_t)pi.CommitLimit * pi.PageSize;
		out->commit_total = (uint64_t)pi.CommitTotal * pi.PageSize;
	}
	memset(&pmc, 0, sizeof(pmc));
	if (K32GetProcessMemoryInfo(GetCurrentProcess(), (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc)))
		/* the same figure on Windows 8+; Windows 7 leaves PagefileUsage 0, Wine leaves PrivateUsage 0 */
		out->process_private = pmc.PrivateUsage ? pmc.PrivateUsage : pmc.PagefileUsage;
	return 0;
}

int os_windows_version(unsigned *major, unsigned *minor, unsigned *build, int *wine)
{
	/* ntdll is in every process; RtlGetVersion since Windows 2000, not shimmed by the manifest */
	typedef LONG(WINAPI * rtl_fn)(OSVERSIONINFOW *);
	HMODULE h = GetModuleHandleW(L"ntdll.dll");
	rtl_fn get = h ? (rtl_fn)(void (*)(void))GetProcAddress(h, "RtlGetVersion") : NULL;
	OSVERSIONINFOW vi;
	*major = *minor = *build = 0;
	*wine = h && GetProcAddress(h, "wine_get_version") != NULL;
	memset(&vi, 0, sizeof(vi));
	vi.dwOSVersionInfoSize = sizeof(vi);
	if (!get || get(&vi) != 0)
		return -1;
	*major = (unsigned)vi.dwMajorVersion;
	*minor = (unsigned)vi.dwMinorVersion;
	*build = (unsigned)vi.dwBuildNumber;
	return 0;
}

int os_is_windows(void)
{
	return 1;
}
#endif
