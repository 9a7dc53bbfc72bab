/*
 * bench/dist_floor.c: the floor of reading what `check` must read of a
 * site-packages' distributions, for bench/environment.sh: every
 * .dist-info's METADATA and RECORD whole, and the first 4 KiB of each
 * binary a RECORD lists (.pyd, .dll), each opened from the site-packages
 * held open (openat) and read once. No parsing and no checks: any reader of
 * the same files does at least this. Prints "FILES BYTES".
 *
 * usage: dist_floor SITE_PACKAGES
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 20];

/* Reads rel whole (at most its first 4 KiB when `head`); adds its bytes to *bytes. */
static int slurp(int dir, const char *rel, int head, long *bytes)
{
	int fd = openat(dir, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t r;
	if (fd < 0)
		return -1;
	if (head) {
		r = pread(fd, buf, 4096, 0);
		*bytes += r > 0 ? r : 0;
	} else {
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			*bytes += r;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int sp;
	DIR *d;
	struct dirent *e;
	long files = 0, bytes = 0;
	if (argc != 2 || (sp = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "usage: dist_floor SITE_PACKAGES\n");
		return 2;
	}
	if (!(d = fdopendir(dup(sp))))
		return 2;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char p[4096];
		int fd;
		if (n <= 10 || strcmp(e->d_name + n - 10, ".dist-info"))
			continue;
		snprintf(p, sizeof(p), "%s/METADATA", e->d_name);
		files += !slurp(sp, p, 0, &bytes);
		snprintf(p, sizeof(p), "%s/RECORD", e->d_name);
		if ((fd = openat(sp, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			/* the RECORD read whole, then the head of each binary it lists */
			size_t len = 0;
			ssize_t r;
			char *rec = NULL, *line, *save = NULL;
			while ((r = read(fd, buf, sizeof(buf))) > 0) {
				rec = realloc(rec, len + (size_t)r + 1);
				if (!rec)
					return 2;
				memcpy(rec + len, buf, (size_t)r);
				len += (size_t)r;
			}
			close(fd);
			files++;
			bytes += (long)len;
			if (!rec)
				continue;
			rec[len] = '\0';
			for (line = strtok_r(rec, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				char *comma = strchr(line, ',');
				size_t k;
				if (!comma)
					continue;
				*comma = '\0';
				k = strlen(line);
				if (k > 4 && (!strcasecmp(line + k - 4, ".pyd") || !strcasecmp(line + k - 4, ".dll")))
					files += !slurp(sp, line, 1, &bytes);
			}
			free(rec);
		}
	}
	closedir(d);
	close(sp);
	printf("%ld %ld\n", files, bytes);
	return 0;
}
