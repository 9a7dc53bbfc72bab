/*
 * osver: the Windows version of the machine checked, for the matrix rows'
 * min_windows (judge/min_windows.h). Read, first source that answers:
 *
 *   - live: ntdll's RtlGetVersion through util/os.h (not shimmed by an
 *     application manifest, unlike GetVersionEx);
 *   - offline (a tree, a Wine prefix, a mounted image, --registry): the
 *     values of HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion the view's
 *     registry holds: CurrentMajorVersionNumber and CurrentMinorVersionNumber
 *     (REG_DWORD, Windows 10 and later), with CurrentBuildNumber (or
 *     CurrentBuild) as the build; without them, CurrentVersion ("6.1"),
 *     which Windows 8.1 and later freeze at "6.3" for compatibility, so it
 *     is read only where the two DWORDs are absent (Microsoft Learn,
 *     "Operating System Version"; docs/check.md, "The machine's Windows");
 *   - else the version resource of System32\kernel32.dll in the tree.
 *
 * A value that is not what Windows writes (a string in a REG_DWORD place,
 * a number no Windows has, a build that is not decimal) is not read: it
 * leaves a note, and the next source is asked. None answers: unknown, and
 * the notes say why. A Wine prefix's registry says the version winecfg
 * sets (Wine 8's default prefix: Windows 7, 6.1.7601): read as any other,
 * with `wine` set (live: Wine's ntdll exports wine_get_version), since
 * Wine's kernel32.dll exports the same functions
 * whatever version it reports.
 */
#ifndef TDC_OSVER_H
#define TDC_OSVER_H

#include "machine/view.h"
#include "util/strbuf.h"

#define OSVER_KEY "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"

struct osver {
	int known;                     /* major.minor read (build may be 0: not said) */
	unsigned major, minor, build;
	int wine;                      /* read from a Wine prefix's registry */
	char *text;                    /* "10.0.19045", "6.1" (no build), or NULL */
	char *source;                  /* where it was read ("RtlGetVersion", a registry, a file), or NULL */
	struct strlist notes;          /* values not read and why; why unknown */
};

void osver_init(struct osver *o);
void osver_release(struct osver *o);

/* Reads the machine's Windows version from the view (see above): never fails, unknown at worst. */
void osver_read(struct osver *o, struct view *v);

/* Windows' name for it: "Windows 7 (NT 6.1.7601)", "Windows 10 or 11 (NT 10.0.26100)"; caller frees.
 * Only when known. */
char *osver_name(const struct osver *o);

#endif
