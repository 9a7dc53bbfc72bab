/*
 * min_windows: the machine's Windows against the row's (see min_windows.h).
 */
#include "judge/min_windows.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/version.h"

/* "Windows 8 (NT 6.2)" for the row's min_windows; caller frees. */
static char *row_windows(const struct matrix_row *row)
{
	struct osver o;
	char *s;
	osver_init(&o);
	o.known = 1;
	o.major = row->min_windows.v.part[0];
	o.minor = row->min_windows.v.part[1];
	o.build = row->min_windows.v.part[2];
	o.text = xstrdup(row->min_windows.text);
	s = osver_name(&o);
	osver_release(&o);
	return s;
}

static void unknown_note(struct findings *out, const struct matrix_row *row, const char *version, const struct osver *w,
			 const char *install, const char *need)
{
	struct strbuf why = STRBUF_INIT;
	char *title, *msg;
	size_t i;
	for (i = 0; i < w->notes.n; i++)
		strbuf_addf(&why, "%s%s", i ? "; " : "", w->notes.v[i]);
	title = xasprintf("this machine's Windows version is unknown: torch %s needs %s or newer, not judged", version,
			  need);
	msg = xasprintf("The matrix row %s says torch %s loads on %s or newer only (min_windows). %s The version of "
			"the Windows checked was not found (%s), so whether kernel32.dll exports what the release "
			"imports is not judged: neither a pass nor a failure.",
			row->id, version, need, row->min_windows_why ? row->min_windows_why : "",
			why.len ? why.buf : "no source answered");
	finding_add(out, RULE_WINDOWS_VERSION_UNKNOWN, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .install = install,
					    .fix = "give the machine's registry (--registry, a SOFTWARE hive or a reg "
						   "export of HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion), or "
						   "run the check on the machine itself" });
	strbuf_release(&why);
	free(title);
	free(msg);
}

void min_windows_judge(struct findings *out, const struct matrix_row *row, const char *version, const struct osver *w,
		       const char *install)
{
	struct winver have;
	char *need, *name, *title, *msg, *fix;
	if (!row || !row->min_windows.set || !w)
		return;
	if (!version)
		version = "";
	need = row_windows(row);
	if (!w->known) {
		unknown_note(out, row, version, w, install, need);
		free(need);
		return;
	}
	memset(&have, 0, sizeof(have));
	have.part[0] = (uint16_t)w->major;
	have.part[1] = (uint16_t)w->minor;
	have.part[2] = (uint16_t)w->build;
	have.nparts = 3;
	if (winver_at_least(&have, &row->min_windows.v)) {
		free(need);
		return;
	}
	name = osver_name(w);
	if (w->wine) {
		title = xasprintf("torch %s needs %s or newer (the matrix row %s's min_windows); this Wine prefix "
				  "reports %s",
				  version, need, row->id, name);
		msg = xasprintf("%s Wine reports the Windows version winecfg sets (read from %s); Wine's own "
				"kernel32.dll exports the functions whatever version it reports, so torch loads under "
				"Wine, while on a real %s `import torch` fails with OSError: [WinError 127] The "
				"specified procedure could not be found.",
				row->min_windows_why ? row->min_windows_why : "", w->source, name);
		fix = xasprintf("make the prefix report a Windows the release supports (`winecfg -v win10`), so "
				"that the check judges what users of that Windows get; users of %s need an older torch",
				name);
		finding_add(out, RULE_WINDOWS_TOO_OLD, SEV_NOTE,
			    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = install,
						    .leaf = "kernel32.dll" });
	} else {
		title = xasprintf("torch %s needs %s or newer (the matrix row %s's min_windows); this machine has %s",
				  version, need, row->id, name);
		msg = xasprintf("%s The loader resolves a binary's imports when it maps it: on %s (read from %s) "
				"kernel32.dll lacks a function the release imports, and `import torch` fails with "
				"OSError: [WinError 127] The specified procedure could not be found.",
				row->min_windows_why ? row->min_windows_why : "", name, w->source);
		fix = xasprintf("run torch %s on %s or newer (PyTorch's Windows wheels are built and tested on "
				"Windows 10 and Server); a machine that cannot be upgraded needs a torch whose row's "
				"min_windows it meets",
				version, need);
		finding_add(out, RULE_WINDOWS_TOO_OLD, SEV_DEFAULT,
			    &(struct finding_spec){ .winerror = 127, .title = title, .message = msg, .fix = fix,
						    .install = install, .leaf = "kernel32.dll" });
	}
	free(title);
	free(msg);
	free(fix);
	free(name);
	free(need);
}
