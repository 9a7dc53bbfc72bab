/*
 * pairs_gate: pinned torch/extension pairs against the measured pairs
 * (pairs_gate.h).
 */
#include "judge/pairs_gate.h"

#include <stdlib.h>
#include <string.h>

#include "matrix/pairs.h"
#include "pins/req_markers.h"
#include "util/version.h"

/* The exact version a pin fixes on Windows (==X, a wheel, a lock), or NULL. */
static const char *exact_on_windows(const struct pin *p)
{
	if (!p->version)
		return NULL;
	if (p->markers && req_markers_on_windows(p->markers) == 0)
		return NULL;
	if (p->platform_tag && !pin_platform_on_windows(p->platform_tag))
		return NULL;
	return p->version;
}

static const struct pin *torch_pin_of(const struct req_file *f)
{
	size_t i;
	for (i = 0; i < f->n_pins; i++)
		if (!strcmp(f->pins[i].name, "torch") && exact_on_windows(&f->pins[i]))
			return &f->pins[i];
	return NULL;
}

size_t gate_extension_pairs(struct findings *out, const struct pinset *head)
{
	const struct pin *any_torch = NULL;
	size_t i, k, n = 0;
	for (i = 0; i < head->n && !any_torch; i++)
		any_torch = torch_pin_of(&head->files[i]);
	for (i = 0; i < head->n; i++) {
		const struct req_file *f = &head->files[i];
		const struct pin *tp = torch_pin_of(f);
		if (!tp)
			tp = any_torch;
		if (!tp)
			continue;
		for (k = 0; k < f->n_pins; k++) {
			const struct pin *p = &f->pins[k];
			const char *ev = exact_on_windows(p), *built, *match;
			char *tv, *title, *msg, *fix;
			struct finding *fd;
			if (!ev || !strcmp(p->name, "torch") || !pairs_knows(p->name))
				continue;
			built = pairs_torch_of(p->name, ev);
			tv = pep440_drop_local(exact_on_windows(tp));
			if (!built || pep440_same_public(built, tv)) {
				free(tv);
				continue;
			}
			match = pairs_ext_for(p->name, tv);
			title = xasprintf("%s %s requires torch==%s; the pins say torch %s", p->name, ev, built, tv);
			msg = xasprintf("%s:%u pins %s==%s, whose win_amd64 wheel requires torch==%s (its METADATA, measured "
					"in " PAIRS_SOURCE "); %s:%u pins torch %s. pip cannot install the pair, and forced "
					"together its binaries fail with WinError 127 on torch's symbols (extension-mismatch).",
					f->path, p->line, p->name, ev, built, tp->file, tp->line, exact_on_windows(tp));
			fix = match ? xasprintf("pin %s==%s (built for torch %s), or torch==%s", p->name, match, tv, built)
				    : xasprintf("pin the %s release built for torch %s, or torch==%s", p->name, tv, built);
			fd = finding_add(out, RULE_EXTENSION_PAIR, SEV_DEFAULT,
					 &(struct finding_spec){ .title = title, .message = msg, .fix = fix });
			finding_anchor(fd, p->file, p->line, p->col);
			n++;
			free(title);
			free(msg);
			free(fix);
			free(tv);
		}
	}
	return n;
}
