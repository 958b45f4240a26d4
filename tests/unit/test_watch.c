/*
 * Tests for watch: exports of async-thread.[ch] across kernel versions,
 * their diff, and references in callers (tests/fixtures/watch/).  With
 * KCARRY_LINUX_6_1 (or KCARRY_LINUX_6_12) naming an extracted kernel tree,
 * call sites in its fs/btrfs are also checked against grep.
 */
#include "unit.h"

#include <stdio.h>

#include "watch.h"

/* The watched files of one fixture version, read and parsed. */
struct version {
	struct buf h, c;
	struct watch_exports ex;
};

static void load_version(struct version *v, const char *dir, bool with_c)
{
	struct err err = ERR_INIT;
	struct watch_source src[2];
	char *h = xstrfmt("watch/%s/async-thread.h", dir);
	char *c = xstrfmt("watch/%s/async-thread.c", dir);

	buf_init(&v->h, 0);
	buf_init(&v->c, 0);
	watch_exports_init(&v->ex);
	unit_read_fixture(&v->h, h);
	unit_read_fixture(&v->c, c);
	src[0] = (struct watch_source){ "fs/btrfs/async-thread.c", v->c.ptr,
					v->c.len };
	src[1] = (struct watch_source){ "fs/btrfs/async-thread.h", v->h.ptr,
					v->h.len };
	/* the .c comes first on purpose: headers are read first anyway */
	if (watch_exports(&v->ex, with_c ? src : src + 1, with_c ? 2 : 1,
			  &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(h);
	free(c);
	err_release(&err);
}

static void release_version(struct version *v)
{
	buf_release(&v->h);
	buf_release(&v->c);
	watch_exports_release(&v->ex);
}

static const struct watch_symbol *must_find(const struct watch_exports *ex,
					    const char *name)
{
	const struct watch_symbol *s = watch_exports_find(ex, name);

	if (!s)
		fail_msg("'%s' not exported", name);
	return s;
}

/* Refs of one fixture file for a set of names. */
struct scan_result {
	struct buf text;
	struct watch_set set;
	struct watch_refs refs;
};

static void scan_text(struct scan_result *r, const char *path,
		      const char *text, const char *const *names)
{
	struct err err = ERR_INIT;

	watch_set_init(&r->set);
	watch_refs_init(&r->refs);
	for (size_t i = 0; names[i]; i++)
		watch_set_add(&r->set, names[i], WATCH_ANY);
	if (watch_scan_refs(&r->refs, &r->set, path, text, strlen(text),
			    &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void scan_fixture(struct scan_result *r, const char *rel,
			 const char *const *names)
{
	buf_init(&r->text, 0);
	unit_read_fixture(&r->text, rel);
	scan_text(r, rel, r->text.ptr, names);
}

static void release_scan(struct scan_result *r)
{
	buf_release(&r->text);
	watch_set_release(&r->set);
	watch_refs_release(&r->refs);
}

/* The ref to name at line, or NULL; fails if there are two. */
static const struct watch_ref *ref_at(const struct watch_refs *refs,
				      const char *name, size_t line)
{
	const struct watch_ref *found = NULL;

	for (size_t i = 0; i < refs->nr; i++) {
		if (strcmp(refs->v[i].name, name) || refs->v[i].line != line)
			continue;
		if (found)
			fail_msg("two refs to '%s' on line %zu", name, line);
		found = &refs->v[i];
	}
	return found;
}

static const struct watch_ref *must_ref(const struct watch_refs *refs,
					const char *name, size_t line)
{
	const struct watch_ref *r = ref_at(refs, name, line);

	if (!r)
		fail_msg("no ref to '%s' on line %zu", name, line);
	return r;
}

static size_t count_refs(const struct watch_refs *refs, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < refs->nr; i++)
		n += !strcmp(refs->v[i].name, name);
	return n;
}

static void assert_func(const struct watch_ref *r, const char *func)
{
	if (!func)
		assert_null(r->func);
	else if (!r->func)
		fail_msg("line %zu: no enclosing function, expected %s",
			 r->line, func);
	else
		assert_string_equal(r->func, func);
}

/* ---- exports ---- */

static void exports_of_6_1_header_list_the_api(void **state)
{
	struct version v;
	const struct watch_symbol *s;

	load_version(&v, "v6.1", false);
	s = must_find(&v.ex, "btrfs_init_work");
	assert_int_equal(s->kind, WATCH_FUNCTION);
	assert_string_equal(s->path, "fs/btrfs/async-thread.h");
	assert_int_equal(s->line, 34);
	assert_string_equal(s->signature,
			    "void (struct btrfs_work *, btrfs_func_t, "
			    "btrfs_func_t, btrfs_func_t)");
	assert_int_equal(must_find(&v.ex, "btrfs_queue_work")->kind,
			 WATCH_FUNCTION);
	s = must_find(&v.ex, "btrfs_alloc_workqueue");
	assert_string_equal(s->signature,
			    "struct btrfs_workqueue *(struct btrfs_fs_info *, "
			    "const char *, unsigned int, int, int)");
	s = must_find(&v.ex, "struct btrfs_work");
	assert_int_equal(s->kind, WATCH_TYPE);
	assert_int_equal(s->line, 17);
	assert_non_null(strstr(s->signature, "btrfs_func_t ordered_free;"));
	assert_int_equal(must_find(&v.ex, "btrfs_func_t")->kind, WATCH_TYPE);
	assert_int_equal(v.ex.nr, 11);
	release_version(&v);
}

static void exports_skip_guard_and_foreign_tags(void **state)
{
	struct version v;

	load_version(&v, "v6.1", true);
	assert_null(watch_exports_find(&v.ex, "BTRFS_ASYNC_THREAD_H"));
	assert_null(watch_exports_find(&v.ex, "struct btrfs_fs_info"));
	release_version(&v);
}

static void exports_of_c_file_are_non_static_definitions(void **state)
{
	struct version v;
	const struct watch_symbol *s;

	load_version(&v, "v6.1", true);
	/* defined in the .c, declared "struct btrfs_workqueue;" in the .h */
	s = must_find(&v.ex, "struct btrfs_workqueue");
	assert_string_equal(s->path, "fs/btrfs/async-thread.c");
	assert_int_equal(s->line, 23);
	/* the header's declaration comes first */
	assert_string_equal(must_find(&v.ex, "btrfs_init_work")->path,
			    "fs/btrfs/async-thread.h");
	assert_null(watch_exports_find(&v.ex, "thresh_queue_hook"));
	assert_null(watch_exports_find(&v.ex, "NO_THRESHOLD"));
	assert_null(watch_exports_find(&v.ex, "WORK_DONE_BIT"));
	assert_int_equal(v.ex.nr, 12);
	release_version(&v);
}

static void signature_drops_names_attributes_and_blanks(void **state)
{
	struct version v;

	load_version(&v, "v6.1", true);
	/* "struct btrfs_fs_info * __pure btrfs_work_owner(...)" */
	assert_string_equal(must_find(&v.ex, "btrfs_work_owner")->signature,
			    "struct btrfs_fs_info *"
			    "(const struct btrfs_work *)");
	assert_string_equal(must_find(&v.ex, "btrfs_func_t")->signature,
			    "void (*)(struct btrfs_work *)");
	assert_string_equal(must_find(&v.ex, "btrfs_workqueue_set_max")
				    ->signature,
			    "void (struct btrfs_workqueue *, int)");
	release_version(&v);
}

static void diff_to_6_12_changes_init_work_signature(void **state)
{
	struct version old, new;
	struct watch_diff d;
	const struct watch_delta *init = NULL;
	size_t added = 0, changed = 0, removed = 0;

	load_version(&old, "v6.1", true);
	load_version(&new, "v6.12", true);
	watch_diff_init(&d);
	watch_diff_exports(&d, &old.ex, &new.ex);
	for (size_t i = 0; i < d.nr; i++) {
		const struct watch_delta *e = &d.v[i];
		const char *name = e->old ? e->old->name : e->new->name;

		if (!strcmp(name, "btrfs_init_work"))
			init = e;
		added += e->change == WATCH_ADDED;
		changed += e->change == WATCH_CHANGED;
		removed += e->change == WATCH_REMOVED;
		assert_string_not_equal(name, "btrfs_queue_work");
	}
	assert_non_null(init);
	assert_int_equal(init->change, WATCH_CHANGED);
	assert_string_equal(init->new->signature,
			    "void (struct btrfs_work *, btrfs_func_t, "
			    "btrfs_ordered_func_t)");
	/* + btrfs_ordered_func_t, btrfs_alloc_ordered_workqueue */
	assert_int_equal(added, 2);
	/* btrfs_init_work, struct btrfs_work (ordered_free is gone) */
	assert_int_equal(changed, 2);
	assert_int_equal(removed, 0);
	assert_string_equal(watch_change_name(init->change), "changed");
	watch_diff_release(&d);
	release_version(&old);
	release_version(&new);
}

static void diff_6_12_to_6_1_reports_removed_symbols(void **state)
{
	struct version old, new;
	struct watch_diff d;

	load_version(&old, "v6.12", true);
	load_version(&new, "v6.1", true);
	watch_diff_init(&d);
	watch_diff_exports(&d, &old.ex, &new.ex);
	assert_int_equal(d.nr, 4);
	assert_int_equal(d.v[0].change, WATCH_REMOVED);
	assert_string_equal(d.v[0].old->name, "btrfs_ordered_func_t");
	assert_null(d.v[0].new);
	watch_diff_release(&d);
	release_version(&old);
	release_version(&new);
}

static void helper_macro_prototypes_are_exported(void **state)
{
	struct version v;
	const struct watch_symbol *s;

	load_version(&v, "v4-helpers", false);
	/* BTRFS_WORK_HELPER_PROTO(endio_helper); */
	s = must_find(&v.ex, "btrfs_endio_helper");
	assert_int_equal(s->kind, WATCH_FUNCTION);
	assert_int_equal(s->line, 40);
	assert_string_equal(s->signature, "void (struct work_struct *)");
	assert_non_null(watch_exports_find(&v.ex, "btrfs_scrubparity_helper"));
	s = must_find(&v.ex, "BTRFS_WORK_HELPER_PROTO");
	assert_int_equal(s->kind, WATCH_MACRO);
	assert_string_equal(s->signature, "(name)");
	assert_string_equal(must_find(&v.ex, "btrfs_init_work")->signature,
			    "void (struct btrfs_work *, btrfs_work_func_t, "
			    "btrfs_func_t, btrfs_func_t, btrfs_func_t)");
	assert_null(watch_exports_find(&v.ex, "__BTRFS_ASYNC_THREAD_"));
	release_version(&v);
}

static void helper_macro_definitions_in_c_are_exported(void **state)
{
	struct err err = ERR_INIT;
	struct buf c = BUF_INIT;
	struct watch_exports ex;
	struct watch_source src;
	const struct watch_symbol *s;

	/* alone, so that the header's prototypes do not come first */
	unit_read_fixture(&c, "watch/v4-helpers/async-thread.c");
	src = (struct watch_source){ "fs/btrfs/async-thread.c", c.ptr, c.len };
	watch_exports_init(&ex);
	assert_int_equal(watch_exports(&ex, &src, 1, &err), 0);
	/* BTRFS_WORK_HELPER(worker_helper); defines btrfs_worker_helper */
	s = must_find(&ex, "btrfs_worker_helper");
	assert_int_equal(s->line, 53);
	assert_string_equal(s->signature, "void (struct work_struct *)");
	assert_non_null(watch_exports_find(&ex, "btrfs_scrubparity_helper"));
	assert_non_null(watch_exports_find(&ex, "btrfs_workqueue_owner"));
	assert_null(watch_exports_find(&ex, "normal_work_helper"));
	assert_null(watch_exports_find(&ex, "__btrfs_queue_work"));
	assert_null(watch_exports_find(&ex, "BTRFS_WORK_HELPER"));
	watch_exports_release(&ex);
	buf_release(&c);
	err_release(&err);
}

static void header_exports_macros_enums_inlines_vars(void **state)
{
	struct err err = ERR_INIT;
	struct buf h = BUF_INIT;
	struct watch_exports ex;
	struct watch_source src;

	unit_read_fixture(&h, "watch/misc/block-group.h");
	src = (struct watch_source){ "fs/btrfs/block-group.h", h.ptr, h.len };
	watch_exports_init(&ex);
	assert_int_equal(watch_exports(&ex, &src, 1, &err), 0);
	assert_int_equal(must_find(&ex, "enum btrfs_disk_cache_state")->kind,
			 WATCH_TYPE);
	assert_int_equal(must_find(&ex, "BTRFS_DC_SETUP")->kind,
			 WATCH_ENUM_CONST);
	assert_int_equal(must_find(&ex, "CACHING_CTL_WAKE_UP")->kind,
			 WATCH_MACRO);
	assert_null(must_find(&ex, "CACHING_CTL_WAKE_UP")->signature);
	/* static inline in a header, in an #ifdef, over two lines */
	assert_string_equal(must_find(&ex, "btrfs_should_fragment_free_space")
				    ->signature,
			    "int (struct btrfs_block_group *)");
	assert_string_equal(must_find(&ex, "btrfs_free_space_cachep")
				    ->signature,
			    "struct kmem_cache *");
	assert_int_equal(must_find(&ex, "btrfs_free_space_cachep")->kind,
			 WATCH_VARIABLE);
	assert_string_equal(must_find(&ex, "btrfs_cache_block_group")
				    ->signature,
			    "int (struct btrfs_block_group *, bool)");
	assert_null(watch_exports_find(&ex, "BTRFS_BLOCK_GROUP_H"));
	assert_int_equal(ex.nr, 12);
	watch_exports_release(&ex);
	buf_release(&h);
	err_release(&err);
}

static void declarators_of_every_shape_are_exported(void **state)
{
	static const char text[] =
		"typedef struct btrfs_foo { int a; } btrfs_foo_t;\n"
		"typedef enum { FOO_A, FOO_B = 1 << 2, } foo_e;\n"
		"extern int (*btrfs_hook)(struct btrfs_work *w, int);\n"
		"static_assert(sizeof(int) == 4);\n"
		"__printf(2, 3)\n"
		"void btrfs_printk(const struct btrfs_fs_info *fs_info,\n"
		"\t\t  const char *fmt, ...);\n"
		"unsigned long ul1 = 4, *ul2;\n"
		"unsigned long btrfs_u(unsigned, long long x, char *const p,\n"
		"\t\t      void (*cb)(int a), int arr[]);\n";
	static const struct {
		const char *name;
		enum watch_kind kind;
		const char *sig;
	} want[] = {
		{ "struct btrfs_foo", WATCH_TYPE, "int a;" },
		{ "btrfs_foo_t", WATCH_TYPE, "struct btrfs_foo { int a; }" },
		{ "FOO_B", WATCH_ENUM_CONST, NULL },
		{ "btrfs_hook", WATCH_VARIABLE,
		  "int (*)(struct btrfs_work *, int)" },
		{ "btrfs_printk", WATCH_FUNCTION,
		  "void (const struct btrfs_fs_info *, const char *, ...)" },
		{ "ul1", WATCH_VARIABLE, "unsigned long" },
		{ "ul2", WATCH_VARIABLE, "unsigned long *" },
		{ "btrfs_u", WATCH_FUNCTION,
		  "unsigned long (unsigned, long long, char *const, "
		  "void (*)(int), int[])" },
	};
	struct err err = ERR_INIT;
	struct watch_exports ex;
	struct watch_source src = { "x.h", text, sizeof(text) - 1 };

	watch_exports_init(&ex);
	assert_int_equal(watch_exports(&ex, &src, 1, &err), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		const struct watch_symbol *s = must_find(&ex, want[i].name);

		assert_int_equal(s->kind, want[i].kind);
		if (want[i].sig)
			assert_string_equal(s->signature, want[i].sig);
		else
			assert_null(s->signature);
	}
	assert_int_equal(ex.nr, 10); /* and FOO_A, foo_e */
	watch_exports_release(&ex);
	err_release(&err);
}

static void if_1_else_branch_is_skipped(void **state)
{
	static const char text[] =
		"#if 1\n"
		"void f(void) { btrfs_init_work(a); }\n"
		"#else\n"
		"void f(void) { btrfs_init_work(b); }\n"
		"#endif\n"
		"#if 0\n"
		"#elif defined(CONFIG_X)\n"
		"void g(void) { btrfs_init_work(c); }\n"
		"#endif\n";
	static const char *const names[] = { "btrfs_init_work", NULL };
	struct scan_result r;

	scan_text(&r, "x.c", text, names);
	assert_int_equal(r.refs.nr, 2);
	assert_func(must_ref(&r.refs, "btrfs_init_work", 2), "f");
	assert_func(must_ref(&r.refs, "btrfs_init_work", 8), "g");
	watch_set_release(&r.set);
	watch_refs_release(&r.refs);
}

static void exports_reject_conflict_markers(void **state)
{
	static const char text[] =
		"void btrfs_init_work(struct btrfs_work *work,\n"
		"<<<<<<< ours\n"
		"\t\t     btrfs_func_t ordered_func, btrfs_func_t free);\n"
		"=======\n"
		"\t\t     btrfs_ordered_func_t ordered_func);\n"
		">>>>>>> theirs\n";
	struct err err = ERR_INIT;
	struct watch_exports ex;
	struct watch_source src = { "fs/btrfs/async-thread.h", text,
				    sizeof(text) - 1 };

	watch_exports_init(&ex);
	assert_int_equal(watch_exports(&ex, &src, 1, &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr,
			    "fs/btrfs/async-thread.h:2: conflict marker");
	watch_exports_release(&ex);
	err_release(&err);
}

static void exports_reject_unbalanced_braces(void **state)
{
	static const char text[] = "struct btrfs_work {\n\tint flags;\n";
	struct err err = ERR_INIT;
	struct watch_exports ex;
	struct watch_source src = { "fs/btrfs/async-thread.h", text,
				    sizeof(text) - 1 };

	watch_exports_init(&ex);
	assert_int_equal(watch_exports(&ex, &src, 1, &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr,
			    "fs/btrfs/async-thread.h: unbalanced braces");
	watch_exports_release(&ex);
	err_release(&err);
}

/* ---- references ---- */

static const char *const api[] = {
	"btrfs_init_work",     "btrfs_queue_work",    "struct btrfs_work",
	"run_one_async_start", "run_one_async_done",  "run_one_async_free",
	"btrfs_init_fs_info",  "async_cow_start",     "async_cow_submit",
	NULL
};

static void call_and_callback_are_told_apart(void **state)
{
	struct scan_result r;
	const struct watch_ref *ref;

	scan_fixture(&r, "watch/callers/disk-io.c", api);
	/* btrfs_init_work(&async->work, run_one_async_start, ... */
	ref = must_ref(&r.refs, "btrfs_init_work", 57);
	assert_int_equal(ref->kind, WATCH_REF_CALL);
	assert_int_equal(ref->col, 2);
	assert_func(ref, "btrfs_wq_submit_bio");
	ref = must_ref(&r.refs, "run_one_async_start", 57);
	assert_int_equal(ref->kind, WATCH_REF_USE);
	assert_func(ref, "btrfs_wq_submit_bio");
	ref = must_ref(&r.refs, "run_one_async_free", 58);
	assert_int_equal(ref->kind, WATCH_REF_USE);
	assert_int_equal(must_ref(&r.refs, "btrfs_queue_work", 65)->kind,
			 WATCH_REF_CALL);
	assert_int_equal(must_ref(&r.refs, "btrfs_queue_work", 67)->kind,
			 WATCH_REF_CALL);
	assert_string_equal(watch_ref_kind_name(WATCH_REF_USE), "use");
	release_scan(&r);
}

static void definition_is_a_declaration_not_a_call(void **state)
{
	struct scan_result r;
	const struct watch_ref *ref;

	scan_fixture(&r, "watch/callers/disk-io.c", api);
	/* static void run_one_async_done(struct btrfs_work *work) */
	ref = must_ref(&r.refs, "run_one_async_done", 4);
	assert_int_equal(ref->kind, WATCH_REF_DECL);
	assert_func(ref, "run_one_async_done");
	/* the parameter type belongs to the function too */
	ref = must_ref(&r.refs, "struct btrfs_work", 4);
	assert_int_equal(ref->kind, WATCH_REF_USE);
	assert_func(ref, "run_one_async_done");
	assert_int_equal(count_refs(&r.refs, "run_one_async_done"), 2);
	release_scan(&r);
}

static void multi_line_call_is_found_at_its_name(void **state)
{
	struct scan_result r;
	const struct watch_ref *ref;

	scan_fixture(&r, "watch/callers/inode.c", api);
	ref = must_ref(&r.refs, "btrfs_init_work", 34);
	assert_int_equal(ref->kind, WATCH_REF_CALL);
	assert_int_equal(ref->col, 3);
	assert_func(ref, "cow_file_range_async");
	assert_func(must_ref(&r.refs, "async_cow_submit", 35),
		    "cow_file_range_async");
	assert_func(must_ref(&r.refs, "btrfs_init_work", 82),
		    "btrfs_writepage_cow_fixup");
	assert_int_equal(count_refs(&r.refs, "btrfs_init_work"), 2);
	assert_int_equal(count_refs(&r.refs, "btrfs_queue_work"), 2);
	release_scan(&r);
}

static void enclosing_function_of_multi_line_definition(void **state)
{
	static const char *const names[] = { "btrfs_init_fs_info",
					     "btrfs_queue_work",
					     "zstd_cleanup_workspace_manager",
					     NULL };
	struct scan_result r, t;

	/* int __cold open_ctree(struct super_block *sb, ...,\n ...)\n{ */
	scan_fixture(&r, "watch/callers/disk-io.c", names);
	assert_func(must_ref(&r.refs, "btrfs_init_fs_info", 84), "open_ctree");
	/* static void __cold\nqgroup_rescan_start(...,\n ...)\n{ */
	scan_fixture(&t, "watch/callers/tricky.c", names);
	assert_func(must_ref(&t.refs, "btrfs_queue_work", 39),
		    "qgroup_rescan_start");
	assert_func(must_ref(&t.refs, "zstd_cleanup_workspace_manager", 31),
		    "btrfs_exit_compress");
	release_scan(&r);
	release_scan(&t);
}

static void comments_and_strings_hold_no_refs(void **state)
{
	static const char *const names[] = { "btrfs_queue_work",
					     "btrfs_init_work", NULL };
	struct scan_result r;
	const struct watch_ref *ref;

	scan_fixture(&r, "watch/callers/tricky.c", names);
	/* comment on line 10, "//" on line 18, strings on 38 and 66 */
	assert_null(ref_at(&r.refs, "btrfs_queue_work", 10));
	assert_null(ref_at(&r.refs, "btrfs_queue_work", 18));
	assert_null(ref_at(&r.refs, "btrfs_queue_work", 38));
	assert_null(ref_at(&r.refs, "btrfs_init_work", 66));
	/* a call with a comment and a line splice before its '(' */
	ref = must_ref(&r.refs, "btrfs_queue_work", 41);
	assert_int_equal(ref->kind, WATCH_REF_CALL);
	assert_func(ref, "qgroup_rescan_start");
	release_scan(&r);
}

/*
 * Choice: '#if 0' code is never compiled, so it cannot break the build and
 * is skipped; all other conditional branches may be built and are scanned.
 */
static void if_0_skipped_ifdef_branches_both_scanned(void **state)
{
	static const char *const names[] = { "btrfs_queue_work",
					     "btrfs_init_work", "check_work",
					     NULL };
	struct scan_result r;

	scan_fixture(&r, "watch/callers/tricky.c", names);
	assert_null(ref_at(&r.refs, "btrfs_queue_work", 50));
	assert_int_equal(must_ref(&r.refs, "check_work", 55)->kind,
			 WATCH_REF_DECL);
	assert_int_equal(must_ref(&r.refs, "check_work", 58)->kind,
			 WATCH_REF_DECL);
	/* both heads open the body: the depth is rewound at #else */
	assert_func(must_ref(&r.refs, "btrfs_init_work", 61), "check_work");
	assert_func(must_ref(&r.refs, "btrfs_queue_work", 63), "check_work");
	assert_int_equal(count_refs(&r.refs, "btrfs_queue_work"), 3);
	release_scan(&r);
}

static void designated_initializer_value_is_a_use(void **state)
{
	static const char *const names[] = { "btrfs_drop_inode",
					     "btrfs_evict_inode", "use_bitmap",
					     NULL };
	struct scan_result r;
	const struct watch_ref *ref;

	scan_fixture(&r, "watch/callers/tricky.c", names);
	/* .drop_inode	= btrfs_drop_inode, */
	ref = must_ref(&r.refs, "btrfs_drop_inode", 69);
	assert_int_equal(ref->kind, WATCH_REF_USE);
	assert_null(ref->func);
	/* passed as a callback and compared with */
	assert_int_equal(must_ref(&r.refs, "btrfs_drop_inode", 61)->kind,
			 WATCH_REF_USE);
	assert_int_equal(must_ref(&r.refs, "btrfs_evict_inode", 62)->kind,
			 WATCH_REF_USE);
	/* ".use_bitmap = use_bitmap": the value only */
	assert_int_equal(must_ref(&r.refs, "use_bitmap", 71)->col, 16);
	release_scan(&r);
}

static void member_access_is_not_a_ref(void **state)
{
	static const char *const names[] = { "use_bitmap", "thresh", NULL };
	struct scan_result r;

	scan_fixture(&r, "watch/callers/tricky.c", names);
	/* ctl->op->use_bitmap(ctl, info), wq->thresh */
	assert_null(ref_at(&r.refs, "use_bitmap", 43));
	assert_int_equal(count_refs(&r.refs, "thresh"), 0);
	assert_int_equal(count_refs(&r.refs, "use_bitmap"), 1);
	release_scan(&r);
}

static void macro_body_refs_name_their_macro(void **state)
{
	static const char *const names[] = { "btrfs_info", "btrfs_set_opt",
					     "btrfs_set_and_info", NULL };
	struct scan_result r;
	const struct watch_ref *ref;

	scan_fixture(&r, "watch/callers/tricky.c", names);
	ref = must_ref(&r.refs, "btrfs_info", 24);
	assert_int_equal(ref->kind, WATCH_REF_CALL);
	assert_string_equal(ref->macro, "btrfs_set_and_info");
	assert_null(ref->func);
	assert_int_equal(must_ref(&r.refs, "btrfs_set_and_info", 21)->kind,
			 WATCH_REF_DECL);
	assert_int_equal(count_refs(&r.refs, "btrfs_set_opt"), 1);
	release_scan(&r);
}

static void tags_are_matched_with_their_keyword(void **state)
{
	static const char text[] =
		"struct btrfs_work;\n"
		"static int btrfs_work;\n"
		"void f(struct btrfs_work *w)\n"
		"{\n"
		"\tunion btrfs_work *u = (struct btrfs_work *)w;\n"
		"}\n";
	static const char *const names[] = { "struct btrfs_work", NULL };
	struct scan_result r;

	scan_text(&r, "x.c", text, names);
	assert_int_equal(r.refs.nr, 3);
	assert_int_equal(must_ref(&r.refs, "struct btrfs_work", 1)->kind,
			 WATCH_REF_DECL);
	assert_func(must_ref(&r.refs, "struct btrfs_work", 3), "f");
	assert_int_equal(must_ref(&r.refs, "struct btrfs_work", 5)->col, 32);
	watch_set_release(&r.set);
	watch_refs_release(&r.refs);
}

static void refs_of_helper_macro_uses(void **state)
{
	struct version v;
	struct watch_set set;
	struct watch_refs refs;
	struct err err = ERR_INIT;
	const struct watch_ref *ref;

	/* a 4.x caller: the helper is passed, the macro declares */
	static const char text[] =
		"BTRFS_WORK_HELPER_PROTO(my_helper);\n"
		"static void f(struct btrfs_work *w)\n"
		"{\n"
		"\tbtrfs_init_work(w, btrfs_endio_helper, end_workqueue_fn,\n"
		"\t\t\tNULL, NULL);\n"
		"}\n";

	load_version(&v, "v4-helpers", true);
	watch_set_init(&set);
	watch_refs_init(&refs);
	watch_set_add_exports(&set, &v.ex);
	assert_int_equal(watch_scan_refs(&refs, &set, "x.c", text,
					 sizeof(text) - 1, &err),
			 0);
	ref = must_ref(&refs, "BTRFS_WORK_HELPER_PROTO", 1);
	assert_int_equal(ref->kind, WATCH_REF_CALL);
	ref = must_ref(&refs, "btrfs_endio_helper", 4);
	assert_int_equal(ref->kind, WATCH_REF_USE);
	assert_func(ref, "f");
	assert_int_equal(must_ref(&refs, "btrfs_init_work", 4)->kind,
			 WATCH_REF_CALL);
	watch_refs_release(&refs);
	watch_set_release(&set);
	release_version(&v);
	err_release(&err);
}

static void refs_reject_nul_bytes(void **state)
{
	static const char text[] = "int a;\0btrfs_init_work(x);\n";
	static const char *const names[] = { "btrfs_init_work", NULL };
	struct watch_set set;
	struct watch_refs refs;
	struct err err = ERR_INIT;

	watch_set_init(&set);
	watch_refs_init(&refs);
	watch_set_add(&set, names[0], WATCH_FUNCTION);
	assert_int_equal(watch_scan_refs(&refs, &set, "bin.c", text,
					 sizeof(text) - 1, &err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, "bin.c: not C source (NUL byte)");
	watch_refs_release(&refs);
	watch_set_release(&set);
	err_release(&err);
}

static void set_keeps_first_kind_and_finds_tags(void **state)
{
	struct watch_set set;
	const struct watch_set_entry *e;

	watch_set_init(&set);
	watch_set_add(&set, "btrfs_init_work", WATCH_FUNCTION);
	watch_set_add(&set, "btrfs_init_work", WATCH_MACRO);
	watch_set_add(&set, "struct btrfs_work", WATCH_TYPE);
	for (int i = 0; i < 200; i++) {
		char *name = xstrfmt("sym_%d", i);

		watch_set_add(&set, name, WATCH_ANY);
		free(name);
	}
	assert_int_equal(set.nr, 202);
	e = watch_set_find(&set, "btrfs_init_work", 15);
	assert_non_null(e);
	assert_int_equal(e->kind, WATCH_FUNCTION);
	assert_non_null(watch_set_find(&set, "struct btrfs_work", 17));
	assert_null(watch_set_find(&set, "btrfs_work", 10));
	assert_non_null(watch_set_find(&set, "sym_199", 7));
	assert_null(watch_set_find(&set, "sym_200", 7));
	watch_set_release(&set);
}

/* Walking a set gives every name once, grown or not, and nothing else. */
static void set_walk_gives_each_name_once(void **state)
{
	struct watch_set set;
	const struct watch_set_entry *e;
	bool seen[300] = { false };
	size_t pos = 0, n = 0;

	watch_set_init(&set);
	assert_null(watch_set_next(&set, &pos));
	for (int i = 0; i < 300; i++) {
		char *name = xstrfmt("w_%d", i);

		watch_set_add(&set, name, WATCH_ANY);
		watch_set_add(&set, name, WATCH_MACRO);
		free(name);
	}
	assert_int_equal(watch_set_count(&set), 300);
	pos = 0;
	while ((e = watch_set_next(&set, &pos))) {
		int i = atoi(e->name + 2);

		assert_true(starts_with(e->name, "w_"));
		assert_int_equal(e->len, strlen(e->name));
		assert_int_equal(e->kind, WATCH_ANY);
		assert_false(seen[i]);
		seen[i] = true;
		n++;
	}
	assert_int_equal(n, 300);
	assert_null(watch_set_next(&set, &pos));
	watch_set_release(&set);
}

/* ---- real trees ---- */

struct lines {
	char **v;
	size_t nr, alloc;
};

static void lines_add(struct lines *l, char *s)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lines_release(struct lines *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
}

/* Sorted, without duplicates. */
static void lines_sort(struct lines *l)
{
	size_t k = 0;

	if (!l->nr)
		return;
	qsort(l->v, l->nr, sizeof(*l->v), cmp_str);
	for (size_t i = 0; i < l->nr; i++) {
		if (k && !strcmp(l->v[k - 1], l->v[i]))
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->nr = k;
}

/* A whole-line comment, as grep sees it: " * text", "/ *", "//". */
static bool is_comment_line(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return (s[0] == '*' && (!s[1] || s[1] == ' ' || s[1] == '\t' ||
				s[1] == '/' || s[1] == '\n')) ||
	       (s[0] == '/' && (s[1] == '*' || s[1] == '/'));
}

/*
 * The oracle: grep -rnw lines, minus whole-line comments and minus
 * unindented lines (kernel style starts declarations and definitions in
 * column 1 and indents calls).
 */
static void grep_calls(struct lines *out, const char *tree, const char *name)
{
	char *cmd = xstrfmt("cd '%s' && grep -rnw --include='*.c' "
			    "--include='*.h' '%s' fs/btrfs",
			    tree, name);
	FILE *p = popen(cmd, "r");
	char *line = NULL;
	size_t cap = 0;

	assert_non_null(p);
	while (getline(&line, &cap, p) > 0) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') :
							 NULL;

		if (!c2 || is_comment_line(c2 + 1) || c2[1] == '\n' ||
		    (c2[1] != ' ' && c2[1] != '\t'))
			continue;
		lines_add(out, xstrndup(line, (size_t)(c2 - line)));
	}
	free(line);
	pclose(p);
	free(cmd);
}

struct tree_files {
	struct lines paths;
	struct buf *texts;
};

static void read_tree(struct tree_files *tf, const char *root,
		      const char *rel)
{
	struct err err = ERR_INIT;
	char *dir = fs_join(root, rel);
	char **names;
	size_t nr;

	if (fs_list_dir(dir, &names, &nr, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	for (size_t i = 0; i < nr; i++) {
		char *sub = fs_join(rel, names[i]);
		char *full = fs_join(root, sub);

		if (fs_is_dir(full)) {
			read_tree(tf, root, sub);
			free(sub);
		} else if (ends_with(sub, ".c") || ends_with(sub, ".h")) {
			size_t n = tf->paths.nr;

			lines_add(&tf->paths, sub);
			tf->texts = xrealloc(tf->texts,
					     (n + 1) * sizeof(*tf->texts));
			buf_init(&tf->texts[n], 0);
			if (fs_read_file(&tf->texts[n], full, 0, &err) < 0)
				fail_msg("%s", err.msg.ptr);
		} else {
			free(sub);
		}
		free(full);
	}
	fs_free_list(names, nr);
	free(dir);
	err_release(&err);
}

/*
 * Every call of every function async-thread.[ch] exports, against grep;
 * btrfs_init_work must have calls.
 */
static void check_tree_calls_match_grep(const char *tree)
{
	struct tree_files tf = { { NULL, 0, 0 }, NULL };
	struct watch_exports ex;
	struct watch_set set;
	struct watch_refs refs;
	struct watch_source src[2];
	struct err err = ERR_INIT;
	size_t nsrc = 0, init_calls = 0;

	read_tree(&tf, tree, "fs/btrfs");
	for (size_t i = 0; i < tf.paths.nr; i++)
		if (!strcmp(tf.paths.v[i], "fs/btrfs/async-thread.h") ||
		    !strcmp(tf.paths.v[i], "fs/btrfs/async-thread.c"))
			src[nsrc++] = (struct watch_source){
				tf.paths.v[i], tf.texts[i].ptr, tf.texts[i].len
			};
	assert_int_equal(nsrc, 2);
	watch_exports_init(&ex);
	watch_set_init(&set);
	watch_refs_init(&refs);
	assert_int_equal(watch_exports(&ex, src, nsrc, &err), 0);
	watch_set_add_exports(&set, &ex);
	for (size_t i = 0; i < tf.paths.nr; i++)
		assert_int_equal(watch_scan_refs(&refs, &set, tf.paths.v[i],
						 tf.texts[i].ptr,
						 tf.texts[i].len, &err),
				 0);
	for (size_t s = 0; s < ex.nr; s++) {
		struct lines mine = { NULL, 0, 0 }, theirs = { NULL, 0, 0 };

		if (ex.v[s].kind != WATCH_FUNCTION)
			continue;
		for (size_t i = 0; i < refs.nr; i++)
			if (refs.v[i].kind == WATCH_REF_CALL &&
			    !strcmp(refs.v[i].name, ex.v[s].name))
				lines_add(&mine,
					  xstrfmt("%s:%zu", refs.v[i].path,
						  refs.v[i].line));
		grep_calls(&theirs, tree, ex.v[s].name);
		lines_sort(&mine);
		lines_sort(&theirs);
		for (size_t i = 0; i < mine.nr || i < theirs.nr; i++)
			if (i >= mine.nr || i >= theirs.nr ||
			    strcmp(mine.v[i], theirs.v[i]))
				fail_msg("%s: calls differ from grep at "
					 "'%s' (ours) / '%s' (grep)",
					 ex.v[s].name,
					 i < mine.nr ? mine.v[i] : "-",
					 i < theirs.nr ? theirs.v[i] : "-");
		if (!strcmp(ex.v[s].name, "btrfs_init_work"))
			init_calls = mine.nr;
		lines_release(&mine);
		lines_release(&theirs);
	}
	assert_true(init_calls > 0);
	for (size_t i = 0; i < tf.paths.nr; i++)
		buf_release(&tf.texts[i]);
	free(tf.texts);
	lines_release(&tf.paths);
	watch_refs_release(&refs);
	watch_set_release(&set);
	watch_exports_release(&ex);
	err_release(&err);
}

static const char *real_tree(const char *var)
{
	const char *d = getenv(var);
	char *p;
	bool ok;

	if (!d || !*d || strchr(d, '\''))
		return NULL;
	p = fs_join(d, "fs/btrfs/async-thread.h");
	ok = fs_is_file(p);
	free(p);
	return ok ? d : NULL;
}

static void calls_in_real_6_1_tree_match_grep(void **state)
{
	const char *tree = real_tree("KCARRY_LINUX_6_1");

	if (!tree)
		skip();
	check_tree_calls_match_grep(tree);
}

static void calls_in_real_6_12_tree_match_grep(void **state)
{
	const char *tree = real_tree("KCARRY_LINUX_6_12");

	if (!tree)
		skip();
	check_tree_calls_match_grep(tree);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exports_of_6_1_header_list_the_api),
		cmocka_unit_test(exports_skip_guard_and_foreign_tags),
		cmocka_unit_test(exports_of_c_file_are_non_static_definitions),
		cmocka_unit_test(signature_drops_names_attributes_and_blanks),
		cmocka_unit_test(diff_to_6_12_changes_init_work_signature),
		cmocka_unit_test(diff_6_12_to_6_1_reports_removed_symbols),
		cmocka_unit_test(helper_macro_prototypes_are_exported),
		cmocka_unit_test(helper_macro_definitions_in_c_are_exported),
		cmocka_unit_test(header_exports_macros_enums_inlines_vars),
		cmocka_unit_test(declarators_of_every_shape_are_exported),
		cmocka_unit_test(exports_reject_conflict_markers),
		cmocka_unit_test(exports_reject_unbalanced_braces),
		cmocka_unit_test(call_and_callback_are_told_apart),
		cmocka_unit_test(definition_is_a_declaration_not_a_call),
		cmocka_unit_test(multi_line_call_is_found_at_its_name),
		cmocka_unit_test(enclosing_function_of_multi_line_definition),
		cmocka_unit_test(comments_and_strings_hold_no_refs),
		cmocka_unit_test(if_0_skipped_ifdef_branches_both_scanned),
		cmocka_unit_test(if_1_else_branch_is_skipped),
		cmocka_unit_test(designated_initializer_value_is_a_use),
		cmocka_unit_test(member_access_is_not_a_ref),
		cmocka_unit_test(macro_body_refs_name_their_macro),
		cmocka_unit_test(tags_are_matched_with_their_keyword),
		cmocka_unit_test(refs_of_helper_macro_uses),
		cmocka_unit_test(refs_reject_nul_bytes),
		cmocka_unit_test(set_keeps_first_kind_and_finds_tags),
		cmocka_unit_test(set_walk_gives_each_name_once),
		cmocka_unit_test(calls_in_real_6_1_tree_match_grep),
		cmocka_unit_test(calls_in_real_6_12_tree_match_grep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
