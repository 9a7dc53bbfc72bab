/*
 * pyiarchive: the archive PyInstaller appends to its bootloader (the "PKG"
 * or CArchive), read as untrusted bytes: its cookie and its table of
 * contents, never its entries' data, never anything written to disk.
 *
 * The layout is PyInstaller's (bootloader/src/pyi_archive.h and
 * pyi_archive.c, PyInstaller/archive/writers.py CArchiveWriter): the
 * archive ends with an 88-byte cookie — the magic "MEI\014\013\012\013\016",
 * then four big-endian 32-bit fields (the archive's length, the TOC's
 * offset and length, both from the archive's start, the Python version as
 * major * 100 + minor) and the Python DLL's name in 64 bytes. The bootloader
 * finds the cookie by scanning the executable from its end; so do we. Each
 * TOC entry is: its own length, the data's offset, stored and uncompressed
 * lengths (big-endian 32-bit), a compression flag, a type code and the
 * NUL-padded name. An archive holding binaries, data, zip files, links or
 * dependencies ('b', 'x', 'Z', 'n', 'd') has the onefile semantics (the
 * bootloader extracts them at start: _pyi_archive_is_extractable); runtime
 * options ('o') carry "pyi-contents-directory NAME" since PyInstaller 6.0.
 *
 * Every field is checked before use: the archive lies inside the file, the
 * TOC inside the archive, every entry's data inside the archive before the
 * cookie, every entry's length covers its header and stays in the TOC,
 * names are non-empty, relative and free of "." and ".." components, and the
 * entries are counted against PYI_MAX_ENTRIES: a hostile archive is a clear
 * error whose cost grows with the entries read, never a crash.
 */
#ifndef TDC_PYIARCHIVE_H
#define TDC_PYIARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/span.h"

#define PYI_COOKIE_LEN 88
#define PYI_MAX_ENTRIES 200000 /* a torch onefile build holds a few thousand */
#define PYI_MAX_TOC ((uint32_t)64 << 20)

struct pyi_entry {
	char *name;          /* as stored, '\\' or '/' separators */
	char typecode;       /* 'b' binary, 'x' data, 'o' option, 's' script, 'z' PYZ, ... */
	int compressed;      /* zlib */
	uint32_t offset;     /* of the data, from the archive's start */
	uint32_t length;     /* stored */
	uint32_t ulength;    /* uncompressed */
};

struct pyi_archive {
	uint64_t cookie_pos;   /* in the file */
	uint64_t pkg_offset;   /* the archive's start in the file */
	uint32_t pkg_length;
	unsigned python_version; /* 311 */
	char python_libname[65]; /* "python311.dll" */
	struct pyi_entry *entries;
	size_t n, alloc;
	int onefile;           /* extractable entries: the onefile semantics */
	char *contents_dir;    /* the pyi-contents-directory option (6.x onedir: "_internal"), or NULL */
};

/* Parses the archive at the end of `file` (the whole executable). 0, or -1 with err; release either way. */
int pyi_archive_parse(struct pyi_archive *a, struct span file, struct err *err);

/* Maps the file at host path `path` and parses it; -1 with err when it holds no archive. */
int pyi_archive_read(struct pyi_archive *a, const char *path, struct err *err);

/*
 * The data of entry `e` of the archive parsed from `file`, inflated when
 * compressed, into *out (malloc'd, *len bytes; the caller frees): never
 * more than its declared uncompressed length nor `cap` bytes, and exactly
 * that length or an error (a stream that ends early, runs past it or is
 * corrupt). 0, or -1 with err.
 */
int pyi_archive_data(const struct pyi_archive *a, struct span file, const struct pyi_entry *e, size_t cap,
		     unsigned char **out, size_t *len, struct err *err);

/*
 * pyi_archive_data without the whole entry in memory: the data goes to
 * sink(ctx, p, n, err) in the order it is made, PYI_CHUNK bytes at most a
 * call, with the same bounds and the same errors (a sink's error stops it).
 * With `mapped` set, `file` is a read-only file mapping (os_map_file) and
 * the stored bytes already read are dropped from the resident set
 * (os_drop_pages) as the reader goes: a onefile app's check then holds
 * about one chunk of either side, not a whole binary (bench/app.sh). 0, or
 * -1 with err.
 */
#define PYI_CHUNK ((size_t)1 << 20)
int pyi_archive_stream(const struct pyi_archive *a, struct span file, int mapped, const struct pyi_entry *e,
		       size_t cap, int (*sink)(void *ctx, const unsigned char *p, size_t n, struct err *err), void *ctx,
		       struct err *err);

/* Whether `file` holds the cookie's magic at all (cheap test for "is this a PyInstaller exe"). */
int pyi_archive_has_cookie(struct span file);

void pyi_archive_release(struct pyi_archive *a);

#endif
