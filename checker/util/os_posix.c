/*
 * os_posix: the OS layer on Linux and other POSIX systems.
 * mmap(2) gives the PE reader lazy, read-only pages: a 1 GiB DLL costs only
 * the pages its headers and directories live on.
 */
#ifndef _WIN32
#include "util/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void os_init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

/* What a path that is not a regular file is, for the message refusing it. */
static const char *ftype_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "not a regular file";
}

/*
 * Opens an existing regular file for reading. O_NONBLOCK keeps open(2) of a
 * FIFO from waiting for a writer (and a device from blocking); the type is
 * then checked on the open descriptor (no window between a stat and the
 * open), and blocking mode restored for the reads. Returns the descriptor,
 * or -1 with `err` naming the path and the OS's reason.
 */
static int open_regular(const char *path, struct stat *st, struct err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return err_set(err, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		return err_set(err, "cannot stat %s: %s", path, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return err_set(err, "%s is %s; a regular file is needed", path, ftype_name(st->st_mode));
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int os_map_file(struct os_map *m, const char *path, struct err *err)
{
	struct stat st;
	int fd;
	void *p;

	m->data = NULL;
	m->size = 0;
	m->priv = NULL;
	if ((fd = open_regular(path, &st, err)) < 0)
		return -1;
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
		close(fd);
		return err_set(err, "%s is too large to map", path);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return err_set(err, "cannot map %s: %s", path, strerror(errno));
	/* readers touch scattered pages: no readahead */
	madvise(p, (size_t)st.st_size, MADV_RANDOM);
	m->data = p;
	m->size = (size_t)st.st_size;
	return 0;
}

int os_open_read(struct os_file *f, const char *path, struct err *err)
{
	struct stat st;
	int fd;
	f->h = -1;
	f->size = 0;
	/* O_NONBLOCK: no wait on a FIFO; the type is checked on the descriptor; pread ignores the flag on a regular file */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return err_set(err, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, "%s is not a regular file", path);
	}
	f->h = fd;
	f->size = (uint64_t)st.st_size;
	return 0;
}

int os_pread(const struct os_file *f, void *buf, size_t n, uint64_t off, size_t *got, struct err *err)
{
	size_t done = 0;
	*got = 0;
	if (off > (uint64_t)INT64_MAX)
		return err_set(err, "read offset 0x%llx out of range", (unsigned long long)off);
	while (done < n) {
		ssize_t r = pread((int)f->h, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_set(err, "cannot read: %s", strerror(errno));
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return 0;
}

void os_close_file(struct os_file *f)
{
	if (f->h >= 0)
		close((int)f->h);
	f->h = -1;
}

void os_unmap(struct os_map *m)
{
	if (m->data)
		munmap((void *)m->data, m->size);
	m->data = NULL;
	m->size = 0;
}

void os_drop_pages(const void *p, size_t len)
{
	/* a read-only private file mapping: dropped pages come back unchanged from the file */
	if (p && len)
		madvise((void *)p, len, MADV_DONTNEED);
}

int os_memfile_new(char **path, int *fd, struct err *err)
{
#if defined(__linux__) && defined(SYS_memfd_create)
	int f = (int)syscall(SYS_memfd_create, "tdc-memfile", 1u /* MFD_CLOEXEC */);
	if (f < 0)
		return err_set(err, "memfd_create: %s", strerror(errno));
	*fd = f;
	*path = xasprintf("/proc/self/fd/%d", f);
	return 0;
#else
	(void)path;
	(void)fd;
	return err_set(err, "files in memory need Linux's memfd_create");
#endif
}

int os_memfile_append(int fd, const void *data, size_t len, struct err *err)
{
	const unsigned char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_set(err, "writing a file in memory: %s", w < 0 ? strerror(errno) : "no progress");
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int os_memfile(const void *data, size_t len, char **path, int *fd, struct err *err)
{
	if (os_memfile_new(path, fd, err))
		return -1;
	if (os_memfile_append(*fd, data, len, err)) {
		close(*fd);
		free(*path);
		*path = NULL;
		*fd = -1;
		return -1;
	}
	return 0;
}

void os_memfile_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

size_t os_resident_file_bytes(void)
{
	/* /proc/self/statm: size resident shared ... in pages; shared is the file-backed part (Linux) */
	char buf[128];
	unsigned long size, resident, shared;
	long ps = sysconf(_SC_PAGESIZE);
	ssize_t n;
	/* asked every few thousand pages a loader touches: opened once (this process's own file), read from 0 */
	static int fd = -1;
	if (fd < 0 && (fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)) < 0)
		return (size_t)-1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0 || ps <= 0)
		return (size_t)-1;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) != 3)
		return (size_t)-1;
	return (size_t)shared * (size_t)ps;
}

/* What stat or lstat found, as an os_stat. */
static void from_stat(const struct stat *st, struct os_stat *out)
{
	if (S_ISREG(st->st_mode))
		out->type = OS_FILE;
	else if (S_ISDIR(st->st_mode))
		out->type = OS_DIR;
	else
		out->type = OS_OTHER;
	out->size = (uint64_t)st->st_size;
}

void os_stat(const char *path, struct os_stat *out)
{
	struct stat st;
	out->type = OS_NONE;
	out->size = 0;
	if (stat(path, &st) == 0)
		from_stat(&st, out);
}

int os_readlink(const char *path, struct strbuf *out)
{
	char buf[4096];
	ssize_t n = readlink(path, buf, sizeof(buf));
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -1;
	strbuf_add(out, buf, (size_t)n);
	return 0;
}

int os_lstat(const char *path, struct os_stat *out)
{
	struct stat st;
	out->type = OS_NONE;
	out->size = 0;
	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return 1;
	from_stat(&st, out);
	return 0;
}

int os_is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

int os_list_dir(const char *dir, struct strlist *names, struct err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return err_set(err, "cannot list %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strlist_push(names, de->d_name);
	}
	closedir(d);
	return 0;
}

int os_list_dir_types(const char *dir, struct strlist *names, struct strbuf *types, struct err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return err_set(err, "cannot list %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		enum os_ftype t = OS_NONE;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
#ifdef DT_DIR
		if (de->d_type == DT_REG)
			t = OS_FILE;
		else if (de->d_type == DT_DIR)
			t = OS_DIR;
#endif
		strlist_push(names, de->d_name);
		strbuf_addch(types, (char)t);
	}
	closedir(d);
	return 0;
}

int os_read_file(const char *path, size_t max, struct strbuf *out, struct err *err)
{
	char buf[65536];
	size_t start = out->len;
	struct stat st;
	int fd = open_regular(path, &st, err);
	if (fd < 0)
		return -1;
	if ((uint64_t)st.st_size > (uint64_t)max) {
		close(fd);
		return err_set(err, "%s is larger than %zu bytes", path, max);
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || out->len - start + (size_t)n > max) {
			int e = errno;
			close(fd);
			/* nothing half-read stays with the caller */
			if (start) {
				out->len = start;
				out->buf[start] = '\0';
			} else {
				strbuf_release(out);
			}
			if (n < 0)
				return err_set(err, "cannot read %s: %s", path, strerror(e));
			return err_set(err, "%s is larger than %zu bytes", path, max); /* grew while read */
		}
		if (n == 0)
			break;
		strbuf_add(out, buf, (size_t)n);
	}
	close(fd);
	return 0;
}

static int read_small_at(int dirfd, const char *path, size_t max, struct strbuf *out, struct err *err)
{
	struct stat st;
	size_t start = out->len, want;
	ssize_t n;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 1;
	}
	if ((uint64_t)st.st_size > (uint64_t)max) {
		close(fd);
		return 2;
	}
	/* one read of one byte more than the size: a regular file reads short only at its end */
	want = (size_t)st.st_size + 1;
	strbuf_grow(out, want);
	do
		n = read(fd, out->buf + start, want);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n == want) {
		int e = errno;
		close(fd);
		out->buf[start] = '\0';
		if (n < 0)
			return err_set(err, "cannot read %s: %s", path, strerror(e));
		return err_set(err, "%s grew while it was read", path);
	}
	close(fd);
	out->len = start + (size_t)n;
	out->buf[out->len] = '\0';
	return 0;
}

int os_read_small_file(const char *path, size_t max, struct strbuf *out, struct err *err)
{
	return read_small_at(AT_FDCWD, path, max, out, err);
}

int os_dir_open(struct os_dir *d, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOCTTY);
	memset(d, 0, sizeof(*d));
	if (fd < 0)
		return -1;
	d->h = fd;
	d->path = xstrdup(path);
	return 0;
}

void os_dir_close(struct os_dir *d)
{
	if (d->path)
		close((int)d->h);
	free(d->path);
	memset(d, 0, sizeof(*d));
}

int os_lstat_at(const struct os_dir *d, const char *rel, struct os_stat *out)
{
	struct stat st;
	out->type = OS_NONE;
	out->size = 0;
	if (!d->path || fstatat((int)d->h, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return 1;
	from_stat(&st, out);
	return 0;
}

int os_read_small_file_at(const struct os_dir *d, const char *rel, size_t max, struct strbuf *out, struct err *err)
{
	if (!d->path)
		return 1;
	return read_small_at((int)d->h, rel, max, out, err);
}

/* Writes all of data to fd, retrying short writes and EINTR; -1 with errno set. */
static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * A target that exists must be a regular file, or a symbolic link to one or
 * to nothing (the link is replaced, never written through). Anything else
 * is refused before anything is created: renaming over /dev/null as root
 * (container jobs) would replace the device node with a file, and over
 * /dev/stdout (a link to /proc/self/fd/1) the link itself.
 */
static int target_ok(const char *path, struct err *err)
{
	struct stat st;
	char to[64];
	ssize_t n;
	if (lstat(path, &st) < 0)
		return 0; /* nothing there (or not reachable: mkstemp says why) */
	if (S_ISLNK(st.st_mode)) {
		/* /dev/stderr, /dev/fd/N: links to a process's open files, whatever those are */
		n = readlink(path, to, sizeof(to) - 1);
		to[n > 0 ? n : 0] = '\0';
		if (!strncmp(to, "/proc/", 6) || !strncmp(to, "/dev/", 5))
			return err_set(err, "%s is a link to %s, not a regular file: refusing to replace it (give a "
					    "file's path, or - for standard output)", path, to);
		if (stat(path, &st) < 0)
			return 0; /* a dangling link: replaced */
	}
	if (S_ISREG(st.st_mode))
		return 0;
	return err_set(err, "%s is %s, not a regular file: refusing to replace it (give a file's path, or - for "
			    "standard output)", path, ftype_name(st.st_mode));
}

int os_write_file_atomic(const char *path, const void *data, size_t len, struct err *err)
{
	/*
	 * The temporary file is created in the target's own folder (so the
	 * rename is atomic) under a name nobody can predict, exclusively
	 * (mkstemp: O_CREAT|O_EXCL, mode 0600): a symbolic link planted there in
	 * advance is never followed. rename() then replaces the directory entry:
	 * if `path` itself is a symbolic link, the link is replaced by the new
	 * file and whatever it pointed to is left alone.
	 */
	const char *slash = strrchr(path, '/');
	char *tmp = slash ? xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
			  : xasprintf(".%s.XXXXXX", path);
	mode_t mask = umask(0);
	int fd;
	umask(mask);
	if (target_ok(path, err) < 0) {
		free(tmp);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err_set(err, "cannot create a temporary file for %s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(fd, 0666 & ~mask) < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		err_set(err, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (target_ok(path, err) < 0) { /* again: it may have appeared while we wrote */
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		err_set(err, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int os_append_file(const char *path, const void *data, size_t len, struct err *err)
{
	/*
	 * One block, one checked write loop. The file must be a regular file
	 * reached without a symbolic link as its last component (O_NOFOLLOW):
	 * GitHub creates these files itself, so a link there is planted, and
	 * appending through it would write wherever it points. When the write
	 * fails part-way (No space left on device), the file is cut back to its
	 * old size, so no half block (a $GITHUB_OUTPUT value without its closing
	 * delimiter) is ever left for the runner to misread.
	 */
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0666);
	if (fd < 0) {
		if (errno == ELOOP)
			return err_set(err, "cannot open %s: it is a symbolic link, and appends never follow one", path);
		return err_set(err, "cannot open %s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return err_set(err, "cannot stat %s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, "cannot append to %s: it is %s", path, ftype_name(st.st_mode));
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (write_all(fd, data, len) < 0) {
		int e = errno;
		int cut = ftruncate(fd, st.st_size);
		close(fd);
		return err_set(err, "cannot write %s: %s (%s)", path, strerror(e),
			       cut == 0 ? "the file was cut back to its size before this write"
					: "and it could not be cut back: it may end in a partial block");
	}
	if (close(fd) < 0)
		return err_set(err, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

const char *os_getenv(const char *name)
{
	return getenv(name);
}

int os_isatty(int fd)
{
	return isatty(fd);
}

int os_term_columns(int fd)
{
	struct winsize ws;
	if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) < 0)
		return 0;
	return ws.ws_col;
}

void os_sleep_ms(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int os_random(void *buf, size_t n, struct err *err)
{
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f)
		return err_set(err, "cannot open /dev/urandom: %s", strerror(errno));
	if (fread(buf, 1, n, f) != n) {
		fclose(f);
		return err_set(err, "cannot read /dev/urandom");
	}
	fclose(f);
	return 0;
}

char *os_abspath(const char *path)
{
	char *r = realpath(path, NULL), *res;
	char cwd[4096];
	if (r) {
		res = xstrdup(r);
		free(r);
		return res;
	}
	if (path[0] == '/')
		return xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return xasprintf("%s/%s", cwd, path);
}

char *os_realpath(const char *path)
{
	char *r = realpath(path, NULL), *res;
	if (!r)
		return NULL;
	res = xstrdup(r);
	free(r);
	return res;
}

char *os_absolute(const char *path)
{
	char cwd[4096];
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	const char *p;
	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		strbuf_addf(&in, "%s/%s", cwd, path);
	} else {
		strbuf_adds(&in, path);
	}
	/* fold the components: "." dropped, ".." removes the previous one (never above "/") */
	for (p = in.buf; *p;) {
		size_t n;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out.len && out.buf[out.len - 1] != '/')
				out.len--;
			if (out.len)
				out.len--;
			if (out.buf)
				out.buf[out.len] = '\0';
		} else if (!(n == 1 && p[0] == '.')) {
			strbuf_addch(&out, '/');
			strbuf_add(&out, p, n);
		}
		p += n;
	}
	if (!out.len)
		strbuf_addch(&out, '/');
	strbuf_release(&in);
	return strbuf_detach(&out);
}

char os_sep(void)
{
	return '/';
}

int os_reg_get(const char *subkey, const char *value, int view, struct strbuf *out, struct err *err)
{
	(void)subkey;
	(void)value;
	(void)view;
	(void)out;
	return err_set(err, "the live registry is only available on Windows (use --registry FILE)");
}

int os_reg_subkeys(const char *subkey, int view, struct strlist *out, struct err *err)
{
	(void)subkey;
	(void)view;
	(void)out;
	return err_set(err, "the live registry is only available on Windows (use --registry FILE)");
}

int os_exec_sibling(const char *name, char **argv, int *status, struct err *err)
{
	char self[4096], *path, *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	(void)status;
	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		return err_set(err, "cannot find the running program (/proc/self/exe): %s",
			       n < 0 ? strerror(errno) : "path too long");
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return err_set(err, "cannot find the folder of %s", self);
	path = xasprintf("%.*s/%s", (int)(slash - self), self, name);
	if (access(path, X_OK) < 0) {
		err_set(err, "cannot run %s: %s (it is built and installed with torch-dll-check)", path,
			strerror(errno));
		free(path);
		return -1;
	}
	argv[0] = path;
	fflush(stdout);
	fflush(stderr);
	execv(path, argv);
	err_set(err, "cannot run %s: %s", path, strerror(errno));
	argv[0] = NULL;
	free(path);
	return -1;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fds(int *fd, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		close(fd[i]);
}

/* The child: stdin from /dev/null, stdout and stderr into the pipes; a failed chdir or exec says errno on px. */
static void spawn_child(const char *const *argv, const char *cwd, const int *po, const int *pe, const int *px)
{
	int nul = open("/dev/null", O_RDONLY), e;
	/* its own process group, so that a timeout kills what it started too */
	setpgid(0, 0);
	if (nul >= 0)
		dup2(nul, 0);
	dup2(po[1], 1);
	dup2(pe[1], 2);
	close(po[0]);
	close(pe[0]);
	close(px[0]);
	if (!cwd || chdir(cwd) == 0) {
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
	}
	e = errno;
	if (write(px[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Reads the child's stdout and stderr until both close or the deadline (0: none) passes; 1 when it passed. */
static int collect_output(int fd_out, int fd_err, long long deadline, struct strbuf *out, struct strbuf *errout)
{
	struct pollfd fds[2];
	struct strbuf *to[2] = { out, errout };
	char buf[65536];
	int nopen = 2, timed_out = 0, k;
	fds[0].fd = fd_out;
	fds[1].fd = fd_err;
	fds[0].events = fds[1].events = POLLIN;
	while (nopen > 0) {
		int wait = -1, r;
		if (deadline) {
			long long left = deadline - now_ms();
			if (left <= 0) {
				timed_out = 1;
				break;
			}
			wait = left > 1000000 ? 1000000 : (int)left;
		}
		r = poll(fds, 2, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (k = 0; k < 2; k++) {
			ssize_t n;
			if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[k].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[k].fd);
				fds[k].fd = -1; /* poll ignores negative fds */
				nopen--;
				continue;
			}
			if (to[k]) /* capped: see os.h */
				strbuf_add_capped(to[k], buf, (size_t)n, OS_SPAWN_MAX_OUTPUT);
		}
	}
	for (k = 0; k < 2; k++)
		if (fds[k].fd >= 0)
			close(fds[k].fd);
	return timed_out;
}

int os_spawn(const char *const *argv, const char *cwd, unsigned timeout_ms, struct strbuf *out,
	     struct strbuf *errout, long long *exit_code, struct err *err)
{
	int po[2], pe[2], px[2], status, timed_out;
	long long deadline = timeout_ms ? now_ms() + timeout_ms : 0;
	pid_t pid;
	int child_errno = 0;

	*exit_code = -1;
	if (pipe(po) < 0)
		return err_set(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	if (pipe(pe) < 0) {
		close_fds(po, 2);
		return err_set(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	}
	/* px reports a failed exec: closed on a successful one (O_CLOEXEC) */
	if (pipe(px) < 0) {
		close_fds(po, 2);
		close_fds(pe, 2);
		return err_set(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	}
	fcntl(px[1], F_SETFD, FD_CLOEXEC);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close_fds(po, 2);
		close_fds(pe, 2);
		close_fds(px, 2);
		return err_set(err, "cannot run %s: fork: %s", argv[0], strerror(e));
	}
	if (pid == 0)
		spawn_child(argv, cwd, po, pe, px);
	setpgid(pid, pid); /* also here: no race with an early timeout */
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	if (read(px[0], &child_errno, sizeof(child_errno)) == (ssize_t)sizeof(child_errno)) {
		close(px[0]);
		close(po[0]);
		close(pe[0]);
		waitpid(pid, &status, 0);
		return err_set(err, "cannot run %s%s%s: %s", argv[0], cwd ? " in " : "", cwd ? cwd : "",
			       strerror(child_errno));
	}
	close(px[0]);
	timed_out = collect_output(po[0], pe[0], deadline, out, errout);
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return 1;
	if (WIFEXITED(status))
		*exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		*exit_code = 128 + WTERMSIG(status);
	return 0;
}

char *os_self_path(struct err *err)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || (size_t)n >= sizeof(self) - 1) {
		err_set(err, "cannot find the running program (/proc/self/exe): %s",
			n < 0 ? strerror(errno) : "path too long");
		return NULL;
	}
	self[n] = '\0';
	return xstrdup(self);
}

int os_setenv(const char *name, const char *value, struct err *err)
{
	if (setenv(name, value, 1) < 0)
		return err_set(err, "cannot set %s: %s", name, strerror(errno));
	return 0;
}

int os_add_dll_directory(const char *dir, struct err *err)
{
	(void)dir;
	return err_set(err, "live loading needs Windows; run the Windows build (torch-dll-check.exe)");
}

int os_load_library_ex(const char *path, unsigned flags, unsigned long *winerror, struct err *err)
{
	(void)path;
	(void)flags;
	*winerror = 0;
	return err_set(err, "live loading needs Windows; run the Windows build (torch-dll-check.exe)");
}

int os_memory_status(struct os_memory *out)
{
	memset(out, 0, sizeof(*out));
	return -1; /* a Windows machine's memory is not this host's: unknown */
}

int os_windows_version(unsigned *major, unsigned *minor, unsigned *build, int *wine)
{
	*major = *minor = *build = 0;
	*wine = 0;
	return -1; /* not Windows: the version is the tree's (machine/osver.h), never this host's */
}

int os_is_windows(void)
{
	return 0;
}
#endif
