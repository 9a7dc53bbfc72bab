/*
 * loader_rules: what the emulated loader's run of one torch install says by
 * itself, as findings (rules.def, sources LOAD_FAILURE and LOADER): each
 * torch binary that does not load (missing-dll, missing-entry-point,
 * missing-ordinal, bad-arch, unreadable, invalid-parameter, not-a-file, with
 * the chain, every probe and one fix), a verdict that depends on the order
 * of two AddDllDirectory folders (order-dependent), a binary that loads only
 * through torch's PATH fallback (loads-via-path), a delay-loaded DLL or
 * export that is missing (delay-load-missing), torch's failing VC++ runtime
 * probe (vc-runtime-probe), a quoted or relative PATH entry (path-entry) and
 * a copy that loads while a newer one is shadowed (shadowed-dll).
 *
 * They come before the matrix row's verdict (policy.h), which gives some of
 * them the row's concrete fix and drops a shadowed-dll its runtime-too-old
 * says more about. The report document (report/result.h) only writes them.
 */
#ifndef TDC_LOADER_RULES_H
#define TDC_LOADER_RULES_H

#include "judge/finding.h"
#include "loader/loader.h"
#include "loader/torchload.h"

/* Adds the loader's findings about `run` to `out`, binary by binary, then the PATH entries and shadowing. */
void loader_rules(struct findings *out, const struct torch_run *run);

/* How a failing leaf is named: the DLL name as imported, or the torch binary's file name at the root. */
const char *loader_leaf_label(const struct ldr_node *leaf);

/* The DLL two AddDllDirectory folders both hold (the node may be a module loaded because of it). */
const char *loader_ambiguous_dll(const struct ldr_node *an);

/*
 * A binary whose verdict depends on the unspecified order of two
 * AddDllDirectory folders (res->order_dependent): both outcomes and both
 * candidates, no guess (docs/loader.md §5.3). `adder` names who added the
 * folders ("torch": its dll_paths), or NULL (any AddDllDirectory folders:
 * an extension's). install and bin_path are borrowed.
 */
void loader_order_finding(struct findings *out, const char *install, const char *bin_path,
			  const struct ldr_result *res, const char *adder);

#endif
