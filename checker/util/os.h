/*
 * os: the only module that talks to the operating system.
 *
 * Everything above this layer is plain C that runs the same on Linux and
 * Windows and is tested on Linux. os_posix.c implements it with POSIX calls;
 * os_win32.c with the Win32 API (wide-char paths converted from and to UTF-8,
 * the live registry, LoadLibraryExW for live confirmation). No other file may
 * contain `#ifdef _WIN32`.
 *
 * All paths are UTF-8 in the host's own syntax. Functions return 0 on
 * success and -1 with a message in `err` on failure.
 */
#ifndef TDC_OS_H
#define TDC_OS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

/*
 * Process start-up: on Windows replaces argv with the UTF-8 form of the wide
 * command line (so non-ASCII paths survive) and sets the console to UTF-8;
 * elsewhere does nothing. main() calls it first.
 */
void os_init(int *argc, char ***argv);

/* A read-only mapping of a whole file. Pages are read only when touched. */
struct os_map {
	const unsigned char *data; /* NULL when size is 0 */
	size_t size;
	void *priv;                /* platform handle(s) */
};

int os_map_file(struct os_map *m, const char *path, struct err *err);
void os_unmap(struct os_map *m);

/*
 * Tells the OS that the pages [p, p + len) of a mapping (from os_map_file)
 * are not needed now: they leave the resident set and are read again (from
 * the page cache) when touched. Keeps long runs over many mapped files
 * small. Never fails.
 */
void os_drop_pages(const void *p, size_t len);
/*
 * A file held in memory, never on disk, for bytes the checker made (a
 * frozen app's binaries inflated from its archive): *path names it for the
 * readers of host paths (os_map_file, os_read_file) while *fd stays open;
 * os_memfile_close(fd) frees it. Linux (memfd_create) only: elsewhere -1
 * with err.
 */
int os_memfile(const void *data, size_t len, char **path, int *fd, struct err *err);
void os_memfile_close(int fd);
/* The same made piece by piece: an empty file in memory, then bytes appended to it. */
int os_memfile_new(char **path, int *fd, struct err *err);
int os_memfile_append(int fd, const void *data, size_t len, struct err *err);

/* The process's resident memory backed by files (mapped files, its own code), or (size_t)-1 when the host cannot say. */
size_t os_resident_file_bytes(void);

/*
 * A regular file open for positioned reads: for readers that need a few
 * small pieces of many files (the import names of 600 binaries), where
 * mapping each file costs more than the bytes read (page tables set up,
 * faulted and torn down). os_pread reads up to n bytes at `off` (*got is
 * fewer only at the end of the file).
 */
struct os_file {
	intptr_t h;     /* descriptor or HANDLE */
	uint64_t size;
};

int os_open_read(struct os_file *f, const char *path, struct err *err);
int os_pread(const struct os_file *f, void *buf, size_t n, uint64_t off, size_t *got, struct err *err);
void os_close_file(struct os_file *f);

enum os_ftype { OS_NONE = 0, OS_FILE, OS_DIR, OS_OTHER };

struct os_stat {
	enum os_ftype type;
	uint64_t size;
};

/* Never fails: a missing or unreachable path has type OS_NONE. */
void os_stat(const char *path, struct os_stat *st);

/*
 * Whether path itself is a symbolic link (POSIX) or a reparse point such as a
 * junction (Windows): tree walks do not follow these, so a junction loop
 * cannot trap them. 0 for anything else, including a missing path.
 */
int os_is_link(const char *path);

/*
 * The target of symbolic link `path`, as stored (relative or absolute),
 * appended to out: 0; -1 when it cannot be read; -2 where the host has no
 * such call (Windows: junctions and links are resolved by the host there).
 */
int os_readlink(const char *path, struct strbuf *out);

/* os_stat without following a link: returns 1 (st untouched) when path is a link, else 0 with st filled. */
int os_lstat(const char *path, struct os_stat *st);

/* Appends the names in `dir` (not "." or "..") in the order the OS returns them. */
int os_list_dir(const char *dir, struct strlist *names, struct err *err);

/*
 * os_list_dir with each name's type as the listing says it, one byte per name
 * appended to `types`: OS_FILE or OS_DIR when the file system gives it
 * (d_type), else OS_NONE (a link, another kind, or not given: os_lstat
 * tells). A tree's folders then cost no lstat per entry looked at.
 */
int os_list_dir_types(const char *dir, struct strlist *names, struct strbuf *types, struct err *err);

/* Reads a whole small file (config, registry export, version.py); refuses files over `max`. */
int os_read_file(const char *path, size_t max, struct strbuf *out, struct err *err);

/*
 * Reads a small file that must be a regular file reached without following
 * a link at its last component (the dist-info files of a site-packages, 600
 * of them beside a big environment): one open, fstat and read. Returns 0
 * with the contents appended; 1 when `path` is missing, a link or not a
 * regular file (the caller looks another way); 2 when it is larger than
 * `max` (nothing read); -1 with `err` on a read error.
 */
int os_read_small_file(const char *path, size_t max, struct strbuf *out, struct err *err);

/*
 * A folder held open so that names below it are looked up from it (openat,
 * fstatat) instead of from the root each time: a site-packages' dist-info
 * files and RECORD binaries are thousands of lookups under one folder, and
 * walking its 6-10 leading components again for each was a third of their
 * kernel time. Zeroed (path NULL) is closed. Hosts without such calls
 * (Windows) join `path` and the name.
 */
struct os_dir {
	intptr_t h;  /* descriptor, or -1 where the host joins paths */
	char *path;  /* NULL: not open */
};

/* 0, or -1 (d zeroed) when `path` cannot be opened as a folder. */
int os_dir_open(struct os_dir *d, const char *path);
void os_dir_close(struct os_dir *d);
/* os_lstat of `rel` ('/' separated, relative) below d. */
int os_lstat_at(const struct os_dir *d, const char *rel, struct os_stat *st);
/* os_read_small_file of `rel` below d. */
int os_read_small_file_at(const struct os_dir *d, const char *rel, size_t max, struct strbuf *out, struct err *err);

/*
 * Writes a file whole or not at all: temporary file in the same folder +
 * rename. A target that exists must be a regular file or a symbolic link
 * (replaced, never written through) to a regular file or to nothing: a
 * device, FIFO, socket, folder, or a link to one or into /proc or /dev
 * (/dev/stderr) is refused and nothing is created. The command line maps
 * "-" and "/dev/stdout" to standard output before calling this.
 */
int os_write_file_atomic(const char *path, const void *data, size_t len, struct err *err);

/* Appends to a file (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT are appended to). */
int os_append_file(const char *path, const void *data, size_t len, struct err *err);

/* The environment variable as UTF-8, or NULL. The pointer is valid until the next call. */
const char *os_getenv(const char *name);

/* Whether fd (1 = stdout, 2 = stderr) is a terminal. */
int os_isatty(int fd);

/* The width in columns of the terminal fd (1 = stdout) is, or 0 when it is none or unknown. */
int os_term_columns(int fd);

/* Fills buf with n unpredictable bytes (for output delimiters and stop-commands tokens). */
int os_random(void *buf, size_t n, struct err *err);

/* Sleeps for about ms milliseconds (retry back-off). */
void os_sleep_ms(unsigned ms);

/*
 * The absolute form of a host path (symbolic links resolved when it exists;
 * otherwise joined to the current directory). Caller frees; NULL on failure.
 */
char *os_abspath(const char *path);

/*
 * The absolute form of a host path by text alone: joined to the current
 * directory when relative, "." and ".." components folded, symbolic links
 * left as they are (a --root that is a link keeps its own parent). Caller
 * frees; NULL on failure.
 */
char *os_absolute(const char *path);

/*
 * The path an existing file or folder really has: every symbolic link (or
 * junction) on the way resolved, "." and ".." folded. NULL when it does not
 * exist or cannot be reached (a dangling link). Caller frees. The view uses
 * it to keep --root a boundary.
 */
char *os_realpath(const char *path);

/* The host's path separator: '/' or '\\'. */
char os_sep(void);

/*
 * The live Windows registry (HKLM), read through the Win32 API.
 * `view` is 64 or 32 (KEY_WOW64_64KEY / KEY_WOW64_32KEY). Returns 0 and the
 * value as text (REG_SZ as is, REG_DWORD in decimal), 1 if the key or value
 * does not exist, -1 on error (and always -1 "not on Windows" on POSIX).
 */
int os_reg_get(const char *subkey, const char *value, int view, struct strbuf *out, struct err *err);

/* Subkey names of an HKLM key (live registry); 1 if the key does not exist. */
int os_reg_subkeys(const char *subkey, int view, struct strlist *out, struct err *err);

/*
 * Runs the program `name` installed next to the running executable (same
 * folder; ".exe" appended on Windows) with argv (argv[0] is replaced by its
 * path; NULL-terminated). Used so that `torch-dll-check pins` reaches
 * torch-dll-check-git, keeping libgit2 out of the main program.
 * POSIX: execv replaces this process, so it returns only on failure (-1).
 * Windows: CreateProcessW, waits, and returns 0 with *status = its exit code.
 */
int os_exec_sibling(const char *name, char **argv, int *status, struct err *err);

/*
 * Child processes, for live confirmation (confirm.c): runs argv (argv[0] a
 * program path, or a bare name looked up on PATH; NULL-terminated) in `cwd`
 * (NULL: ours), stdin empty, and collects its stdout and stderr into `out`
 * and `errout` (either may be NULL: discarded). Both pipes are drained
 * together, so a child writing a lot to both never blocks on us. Each stream
 * keeps at most OS_SPAWN_MAX_OUTPUT bytes: beyond that its oldest half is
 * dropped, so the last lines (an error message) always survive.
 * After `timeout_ms` (0 = no limit) the child and everything it started are
 * killed (POSIX: its process group, SIGKILL; Windows: its job object).
 * Returns 0 with *exit_code set when the child ended by itself: its exit
 * status; on POSIX 128+N when killed by signal N; on Windows the DWORD
 * GetExitCodeProcess gives (a crash is an NTSTATUS such as 0xC0000005).
 * Returns 1 when it was killed for the timeout (*exit_code then unknown,
 * set to -1), -1 with `err` when it could not be started at all.
 * Windows: the command line is quoted so that CommandLineToArgvW and the
 * C runtime give each argument back unchanged.
 */
#define OS_SPAWN_MAX_OUTPUT (8u << 20)
int os_spawn(const char *const *argv, const char *cwd, unsigned timeout_ms, struct strbuf *out,
	     struct strbuf *errout, long long *exit_code, struct err *err);

/* The running program's own path (absolute). Caller frees; NULL with `err` on failure. */
char *os_self_path(struct err *err);

/* Sets an environment variable of this process (children and, on Windows, the loader's PATH see it). */
int os_setenv(const char *name, const char *value, struct err *err);

/*
 * The real Windows loader, for the live-confirmation helper only (it runs in
 * a child process, so these never touch the checker's own process state):
 * os_add_dll_directory is AddDllDirectory; os_load_library_ex is
 * LoadLibraryExW(path, NULL, flags) under SetErrorMode(SEM_FAILCRITICALERRORS
 * | SEM_NOGPFAULTERRORBOX) (no error dialogs: CPython and torch load with the
 * first; the second keeps a crashing DllMain from waiting on a WER dialog),
 * and never frees the module:
 * it stays in the loaded-module list as it would in python.exe.
 * os_load_library_ex returns 0 when it loaded, 1 when it failed with
 * *winerror = GetLastError() (never 0 for a failure), -1 with `err` when it
 * cannot try. On POSIX both are -1 "live loading needs Windows".
 */
int os_add_dll_directory(const char *dir, struct err *err);
int os_load_library_ex(const char *path, unsigned flags, unsigned long *winerror, struct err *err);

/*
 * The machine's memory as the OS counts it (docs/commit.md): physical memory
 * (GlobalMemoryStatusEx's ullTotalPhys), the current commit limit and charge
 * (GetPerformanceInfo's CommitLimit and CommitTotal, in bytes), and this
 * process's private commit (GetProcessMemoryInfo's PrivateUsage, or PagefileUsage
 * when that is 0: Wine fills only the latter). 0, or -1
 * when the host cannot say (POSIX: "unknown", never a guess); fields it cannot
 * read are 0.
 */
struct os_memory {
	uint64_t physical, commit_limit, commit_total, process_private;
};
int os_memory_status(struct os_memory *out);

/*
 * The running Windows' version as ntdll's RtlGetVersion reports it (major,
 * minor, build): unlike GetVersionEx it is not shimmed by the manifest's
 * compatibility section (Microsoft Learn, "RtlGetVersion function",
 * "Operating system version"). *wine: ntdll is Wine's (it exports
 * wine_get_version): the version is what winecfg sets. 0, or -1 when the host cannot say (POSIX:
 * always; the caller reads another source, never guesses).
 */
int os_windows_version(unsigned *major, unsigned *minor, unsigned *build, int *wine);

/* Whether this build can talk to a live Windows machine (registry, LoadLibrary). */
int os_is_windows(void);

#endif
