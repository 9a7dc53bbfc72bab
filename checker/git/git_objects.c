/*
 * git_objects: see git_objects.h.
 */
#include "git/git_objects.h"

#include <string.h>

#include "git/git_loose.h"
#include "util/os.h"

static const char *lg_msg(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

int objects_check(git_repository *repo, const git_oid *id, uint64_t max, uint64_t *size, struct err *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	struct strbuf path = STRBUF_INIT;
	struct os_stat st;
	int rc;
	*size = 0;
	git_oid_tostr(hex, sizeof(hex), id);
	strbuf_addf(&path, "%sobjects/%.2s/%s", git_repository_commondir(repo), hex, hex + 2);
	os_stat(path.buf, &st);
	if (st.type == OS_FILE) {
		struct os_map m;
		struct git_loose_info info;
		struct err e;
		err_clear(&e);
		if (os_map_file(&m, path.buf, err) < 0) {
			strbuf_release(&path);
			return -1;
		}
		rc = git_loose_check(m.data, m.size, max, &info, &e);
		os_unmap(&m);
		*size = info.size;
		if (rc < 0)
			err_set(err, "object %.12s is %s: %s", hex, e.msg, path.buf);
	} else {
		git_odb *odb = NULL;
		size_t len = 0;
		git_object_t type;
		if (git_repository_odb(&odb, repo) < 0) {
			strbuf_release(&path);
			return err_set(err, "cannot open the object database: %s", lg_msg());
		}
		rc = git_odb_read_header(&len, &type, odb, id);
		git_odb_free(odb);
		if (rc == GIT_ENOTFOUND)
			rc = OBJECTS_MISSING;
		else if (rc < 0)
			rc = err_set(err, "object %.12s cannot be read: %s", hex, lg_msg());
		else
			rc = (uint64_t)(*size = len) > max ? OBJECTS_TOO_BIG : OBJECTS_OK;
	}
	strbuf_release(&path);
	return rc;
}

int objects_read_blob(git_repository *repo, const git_oid *id, uint64_t max, struct strbuf *out, uint64_t *size,
		      struct err *err)
{
	git_blob *blob = NULL;
	int rc = objects_check(repo, id, max, size, err);
	strbuf_reset(out);
	if (rc != OBJECTS_OK)
		return rc;
	if (git_blob_lookup(&blob, repo, id) < 0) {
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), id);
		return err_set(err, "blob %.12s cannot be read: %s", hex, lg_msg());
	}
	/* libgit2 read what was checked: its size cannot differ, but a cap is a cap */
	if ((uint64_t)git_blob_rawsize(blob) > max) {
		*size = (uint64_t)git_blob_rawsize(blob);
		git_blob_free(blob);
		return OBJECTS_TOO_BIG;
	}
	strbuf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return OBJECTS_OK;
}
