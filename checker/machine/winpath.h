/*
 * winpath: Windows names and paths as text ("C:\Python311\Lib"), for the
 * view of the machine (view.h) and everyone who builds a path to ask it:
 * the order NTFS lists names in, the upcased key a name is looked up by,
 * and normalising, joining and splitting paths. Pure functions: nothing is
 * read from a disk. Results that are allocated are the caller's to free.
 */
#ifndef TDC_WINPATH_H
#define TDC_WINPATH_H

char *winpath_join(const char *dir, const char *name);
char *winpath_dirname(const char *path);
const char *winpath_basename(const char *path); /* points into path */
char *winpath_normalize(const char *path);      /* '/' → '\\', no duplicate or trailing separators; X:\ paths fold "." and ".." (not above X:\) */
int winpath_is_absolute(const char *path);      /* "X:\\..." or "\\\\server\\..." */

/* NTFS collation of two UTF-8 names (upcased UTF-16 code units, shorter first on a tie): <0, 0, >0. */
int winpath_ntfs_cmp(const char *a, const char *b);

/* A name or path upcased as winpath_ntfs_cmp compares it, re-encoded as UTF-8: the key two spellings share. */
char *winpath_upcase(const char *s);

#endif
