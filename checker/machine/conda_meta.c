/*
 * conda_meta: conda-meta\*.json read into a file -> package map (see conda_meta.h).
 */
#include "machine/conda_meta.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "machine/winpath.h"
#include "util/os.h"

void conda_meta_init(struct conda_meta *cm)
{
	memset(cm, 0, sizeof(*cm));
	strlist_init(&cm->keys);
	strlist_init(&cm->notes);
	strmap_init(&cm->owner, 0);
}

void conda_meta_release(struct conda_meta *cm)
{
	size_t i;
	for (i = 0; i < cm->n; i++) {
		free(cm->pkgs[i].name);
		free(cm->pkgs[i].version);
		free(cm->pkgs[i].build);
		free(cm->pkgs[i].channel);
		free(cm->pkgs[i].record);
	}
	free(cm->pkgs);
	free(cm->prefix);
	strmap_release(&cm->owner);
	strlist_release(&cm->keys);
	strlist_release(&cm->notes);
	memset(cm, 0, sizeof(*cm));
}

static int is_binary(const char *p)
{
	return str_iendswith(p, ".dll") || str_iendswith(p, ".pyd") || str_iendswith(p, ".exe");
}

/* A record's relative path as a key: '\\', upper case; NULL when absolute, a drive path, or climbing with "..". */
static char *path_key(const char *p)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s = p, *e;
	if (!*p || *p == '/' || *p == '\\' || strchr(p, ':'))
		return NULL;
	while (*s) {
		e = s + strcspn(s, "/\\");
		if ((e - s == 2 && s[0] == '.' && s[1] == '.') || e == s) {
			strbuf_release(&sb);
			return NULL;
		}
		if (!(e - s == 1 && s[0] == '.')) {
			if (sb.len)
				strbuf_addch(&sb, '\\');
			for (; s < e; s++)
				strbuf_addch(&sb, (*s >= 'a' && *s <= 'z') ? (char)(*s - 'a' + 'A') : *s);
		}
		s = *e ? e + 1 : e;
	}
	return strbuf_detach(&sb);
}

/* "https://conda.anaconda.org/conda-forge/win-64" -> "conda-forge"; "https://repo.anaconda.com/pkgs/main/win-64" -> "pkgs/main". */
static char *short_channel(const char *c)
{
	const char *p = strstr(c, "://"), *end;
	if (!p)
		return xstrdup(c);
	p = strchr(p + 3, '/'); /* after the host */
	if (!p)
		return xstrdup(c);
	p++;
	end = p + strlen(p);
	while (end > p && end[-1] == '/')
		end--;
	{
		const char *last = end;
		while (last > p && last[-1] != '/')
			last--;
		/* a subdir (win-64, noarch) is the package's platform, not the channel */
		if (last > p && (!strncmp(last, "win-", 4) || !strncmp(last, "noarch", 6) || !strncmp(last, "linux-", 6) ||
				 !strncmp(last, "osx-", 4)))
			end = last - 1;
	}
	if (end > p && !strncmp(p, "t/", 2)) /* anaconda.org token paths are not names */
		return xstrdup(c);
	return xstrndup(p, (size_t)(end - p));
}

static const char *str_member(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(x) && x->valuestring ? x->valuestring : NULL;
}

static void take_path(struct conda_meta *cm, const char *p, size_t pkg)
{
	char *key;
	if (!p || !is_binary(p))
		return;
	if (cm->keys.n >= CONDA_META_MAX_PATHS) {
		return; /* said once by the caller */
	}
	key = path_key(p);
	if (!key)
		return;
	if (strmap_get(&cm->owner, key, NULL)) { /* two packages claim it: the first read keeps it */
		free(key);
		return;
	}
	strlist_push_owned(&cm->keys, key);
	strmap_add(&cm->owner, cm->keys.v[cm->keys.n - 1], pkg);
}

int conda_meta_add_record(struct conda_meta *cm, const char *text, size_t len, const char *record, struct err *err)
{
	cJSON *root;
	const char *name, *version;
	const cJSON *files, *pd, *paths, *it;
	struct conda_pkg *pk;
	size_t at, before = cm->keys.n;
	root = cJSON_ParseWithLength(text ? text : "", len);
	if (!root) {
		err_set(err, "conda-meta\\%s: not JSON (or nested deeper than %d)", record, CJSON_NESTING_LIMIT);
		return -1;
	}
	name = str_member(root, "name");
	version = str_member(root, "version");
	if (!cJSON_IsObject(root) || !name || !version || !*name || !*version) {
		err_set(err, "conda-meta\\%s: no name and version strings", record);
		cJSON_Delete(root);
		return -1;
	}
	ALLOC_GROW(cm->pkgs, cm->n + 1, cm->alloc);
	at = cm->n++;
	pk = &cm->pkgs[at];
	pk->name = xstrdup(name);
	pk->version = xstrdup(version);
	pk->build = xstrdup(str_member(root, "build") ? str_member(root, "build") : "");
	pk->channel = str_member(root, "channel") ? short_channel(str_member(root, "channel")) : xstrdup("");
	pk->record = xstrdup(record);
	files = cJSON_GetObjectItemCaseSensitive(root, "files");
	if (cJSON_IsArray(files))
		cJSON_ArrayForEach(it, files)
			take_path(cm, cJSON_IsString(it) ? it->valuestring : NULL, at);
	pd = cJSON_GetObjectItemCaseSensitive(root, "paths_data");
	paths = cJSON_IsObject(pd) ? cJSON_GetObjectItemCaseSensitive(pd, "paths") : NULL;
	if (cJSON_IsArray(paths))
		cJSON_ArrayForEach(it, paths)
			take_path(cm, cJSON_IsObject(it) ? str_member(it, "_path") : NULL, at);
	if (cm->keys.n >= CONDA_META_MAX_PATHS && before < CONDA_META_MAX_PATHS)
		strlist_pushf(&cm->notes, "more than %d binaries listed in conda-meta: the rest (from %s on) not mapped",
			      CONDA_META_MAX_PATHS, record);
	cJSON_Delete(root);
	return 0;
}

int conda_meta_read(struct conda_meta *cm, struct view *v, const char *prefix, struct err *err)
{
	struct strlist names = STRLIST_INIT;
	char *dir = winpath_join(prefix, "conda-meta");
	size_t i, over = 0;
	free(cm->prefix);
	cm->prefix = xstrdup(prefix);
	if (!view_is_dir(v, dir)) {
		free(dir);
		return 1;
	}
	if (view_list_dir(v, dir, &names, err)) {
		free(dir);
		return -1;
	}
	for (i = 0; i < names.n; i++) {
		struct strbuf text = STRBUF_INIT;
		struct err e;
		char *win, *host;
		if (!str_iendswith(names.v[i], ".json"))
			continue;
		if (cm->records >= CONDA_META_MAX_FILES) {
			over++;
			continue;
		}
		win = winpath_join(dir, names.v[i]);
		host = view_is_file(v, win) ? view_host_path(v, win) : NULL;
		err_clear(&e);
		if (host) {
			cm->records++;
			if (os_read_file(host, CONDA_META_MAX_SIZE, &text, &e) < 0 ||
			    conda_meta_add_record(cm, text.buf, text.len, names.v[i], &e))
				strlist_pushf(&cm->notes, "%s", e.msg);
		}
		free(host);
		free(win);
		strbuf_release(&text);
	}
	if (over)
		strlist_pushf(&cm->notes, "%zu conda-meta records past the first %d not read", over, CONDA_META_MAX_FILES);
	strlist_release(&names);
	free(dir);
	return 0;
}

const struct conda_pkg *conda_meta_owner(const struct conda_meta *cm, const char *winpath)
{
	size_t n, at;
	char *key;
	int hit;
	if (!cm->prefix || !winpath || !cm->keys.n)
		return NULL;
	n = strlen(cm->prefix);
	while (n && cm->prefix[n - 1] == '\\')
		n--;
	if (str_nicmp(winpath, cm->prefix, n) || winpath[n] != '\\')
		return NULL;
	key = path_key(winpath + n + 1);
	if (!key)
		return NULL;
	hit = strmap_get(&cm->owner, key, &at);
	free(key);
	return hit ? &cm->pkgs[at] : NULL;
}
