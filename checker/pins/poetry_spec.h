/*
 * poetry_spec: Poetry's version constraints ("^2.4", "~2.4.1", "2.*") as
 * PEP 440 specifiers, for pyproject's [tool.poetry] tables and poetry.lock.
 */
#ifndef TDC_POETRY_SPEC_H
#define TDC_POETRY_SPEC_H

/* Poetry caret, tilde, bare and wildcard constraints as PEP 440 ("^2.4" -> ">=2.4,<3.0"); NULL if untranslatable. */
char *req_poetry_to_pep440(const char *spec);

#endif
