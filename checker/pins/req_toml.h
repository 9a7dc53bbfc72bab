/*
 * req_toml: what the TOML pin-file dialects share (pyproject.toml's tables,
 * Pipfile, lock files). Errors are "PATH:LINE:COL: message" at the value.
 */
#ifndef TDC_REQ_TOML_H
#define TDC_REQ_TOML_H

#include "util/err.h"
#include "pins/pin.h"
#include "util/toml.h"

/* 0 if t has type `type`, else -1 with "WHAT must be TYPE, not TYPE" in err. */
int req_toml_want(const struct req_file *f, const struct toml *t, enum toml_type type, const char *what,
		  struct err *err);
/* An array of PEP 508 strings (NULL: nothing) as pins labelled src and group.
 * In [dependency-groups], { include-group = ... } entries are skipped. */
int req_toml_array(struct req_file *f, const struct toml *arr, const char *what, enum pin_source src,
		   const char *group, struct err *err);
/* A table of such arrays (optional-dependencies, dependency-groups): each key is the group. */
int req_toml_table_of_arrays(struct req_file *f, const struct toml *t, const char *what, enum pin_source src,
			     struct err *err);
/* name -> URL in an array of { name, url } tables ([[tool.uv.index]], [[source]]); NULL if absent. Borrowed. */
const char *req_toml_index_by_name(const struct toml *aot, const char *name);
/* Appends the url of every table in an array of tables (NULL: nothing) to f->indexes. */
int req_toml_record_indexes(struct req_file *f, const struct toml *aot, const char *what, struct err *err);
/*
 * A table of `name = "spec"` / `name = { version, markers, extras, url, ... }`
 * entries: Poetry's (poetry = 1: its constraint language, `source`, arrays of
 * tables, `python` skipped) or Pipfile's (poetry = 0: PEP 440, `index`).
 * `sources` is the array of named indexes an entry may pick from.
 */
int req_toml_keyed_deps(struct req_file *f, const struct toml *t, const char *what, enum pin_source src,
			const char *group, const struct toml *sources, int poetry, struct err *err);

#endif
