/*
 * check: what a cell's build says of its adapted hunks
 * (check_judge_adapted) and which adapted hunks still fail a run
 * (check_adapted_open), on cells built in memory: one patch, one file,
 * an adapted hunk 1 and an exact hunk 2.
 */
#include "unit.h"

#include "check.h"

/* A cell whose patch 1 adapted hunk 1 of path (moved_to, when set, is
 * where rule 1 put it), built with make targets "fs/". */
static void cell_init(struct check_cell *c, const char *path,
		      const char *moved_to)
{
	struct carry_patch *cp;
	struct carry_file *cf;

	memset(c, 0, sizeof(*c));
	c->ok = true;
	c->carry.nr = 1;
	c->carry.patches = xcalloc(1, sizeof(*cp));
	c->carry.counts[OUTCOME_ADAPTED] = 1;
	c->carry.worst = OUTCOME_ADAPTED;
	cp = &c->carry.patches[0];
	cp->outcome = OUTCOME_ADAPTED;
	cp->committed = true;
	cp->nr_files = 1;
	cp->files = xcalloc(1, sizeof(*cf));
	cf = &cp->files[0];
	cf->path = xstrdup(path);
	cf->moved_to = moved_to ? xstrdup(moved_to) : NULL;
	cf->outcome = OUTCOME_ADAPTED;
	buf_init(&cf->rej, 0);
	cf->nr_hunks = 2;
	cf->hunks = xcalloc(2, sizeof(*cf->hunks));
	cf->hunks[0].rule = RULE_ADAPTED;
	cf->hunks[0].adapt = xcalloc(1, sizeof(struct adaptation));
	cf->hunks[0].adapt->rule = ADAPT_DRIFT;
	cf->hunks[0].adapt->note = xstrdup("context taken from the target");
	cf->hunks[1].rule = RULE_EXACT;
	c->build.ran = true;
	c->build.nr_targets = 1;
	c->build.targets = xcalloc(2, sizeof(char *));
	c->build.targets[0] = xstrdup("fs/");
	diag_list_init(&c->build.diags);
	buf_init(&c->build.log, 0);
}

/* A new diagnostic in path, pinned as cause says on patch 1, hunk h. */
static void add_diag(struct check_cell *c, const char *path,
		     enum blame_cause cause, size_t h, const char *where)
{
	struct diag d = { 0 };
	struct blame_attribution *a;

	d.path = (char *)path;
	d.line = 5;
	d.sev = DIAG_WARNING;
	d.message = "unused variable 'x'";
	buf_init(&d.text, 0);
	diag_list_add_copy(&c->build.diags, &d);
	c->build.attr = xrealloc(c->build.attr, c->build.diags.nr *
						       sizeof(*c->build.attr));
	a = &c->build.attr[c->build.diags.nr - 1];
	memset(a, 0, sizeof(*a));
	a->cause = cause;
	a->patch = 1;
	a->hunk = h;
	a->where = where ? xstrdup(where) : NULL;
	c->build.warnings++;
}

static void cell_release(struct check_cell *c)
{
	carry_result_release(&c->carry);
	build_result_release(&c->build);
}

static const struct apply_hunk_result *hunk1(const struct check_cell *c)
{
	return &c->carry.patches[0].files[0].hunks[0];
}

static void assert_back_to_conflict(const struct check_cell *c)
{
	const struct apply_hunk_result *hr = hunk1(c);

	assert_int_equal(hr->rule, RULE_CONFLICT);
	assert_null(hr->adapt);
	assert_non_null(hr->cause);
	assert_int_equal(hr->cause->kind, CAUSE_BUILD);
	assert_string_equal(hr->reason, "the adapted hunk (rule "
					"drifted-context) does not build");
	assert_int_equal(c->carry.patches[0].outcome, OUTCOME_CONFLICT);
	assert_int_equal(c->carry.counts[OUTCOME_ADAPTED], 0);
	assert_int_equal(c->carry.counts[OUTCOME_CONFLICT], 1);
	assert_int_equal(c->carry.nr_failed, 1);
	assert_int_equal(check_adapted_open(&c->carry, ACCEPT_PERSON), 0);
}

static void diagnostic_pinned_on_adapted_hunk_makes_it_a_conflict(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.c", NULL);
	add_diag(&c, "fs/x.c", BLAME_PATCH, 1, NULL);
	check_judge_adapted(&c);
	assert_back_to_conflict(&c);
	assert_string_equal(hunk1(&c)->cause->text,
			    "fs/x.c:5: warning: unused variable 'x'");
	cell_release(&c);
}

static void note_at_adapted_hunk_makes_it_a_conflict(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.h", NULL);
	/* an error in a caller, "declared here" at the adapted line */
	add_diag(&c, "fs/y.c", BLAME_DECLARATION, 1, "fs/x.h:3");
	check_judge_adapted(&c);
	assert_back_to_conflict(&c);
	cell_release(&c);
}

static void diagnostic_where_rule_1_moved_it_counts(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/gone.h", "fs/z.c");
	add_diag(&c, "fs/z.c", BLAME_PATCH, 1, NULL);
	check_judge_adapted(&c);
	assert_back_to_conflict(&c);
	cell_release(&c);
}

/* rule 1 hunk by hunk: fs/gone.c's hunk 1 went to fs/a.c, hunk 2 to
 * fs/b.c; each is judged in its own file */
static void split_hunks_are_judged_each_in_its_file(void **s)
{
	struct check_cell c;
	struct carry_file *cf;

	(void)s;
	cell_init(&c, "fs/gone.c", "fs/a.c");
	cf = &c.carry.patches[0].files[0];
	cf->hunk_to = xcalloc(2, sizeof(char *));
	cf->hunk_to[0] = xstrdup("fs/a.c");
	cf->hunk_to[1] = xstrdup("fs/b.c");
	cf->hunks[1].rule = RULE_ADAPTED;
	cf->hunks[1].adapt = xcalloc(1, sizeof(struct adaptation));
	cf->hunks[1].adapt->rule = ADAPT_MOVED;
	assert_string_equal(carry_hunk_path(cf, 1), "fs/b.c");
	add_diag(&c, "fs/b.c", BLAME_PATCH, 2, NULL);
	check_judge_adapted(&c);
	assert_int_equal(cf->hunks[1].rule, RULE_CONFLICT);
	assert_int_equal(c.carry.patches[0].outcome, OUTCOME_CONFLICT);
	assert_int_equal(hunk1(&c)->rule, RULE_ADAPTED);
	assert_true(hunk1(&c)->adapt->built); /* fs/a.c built clean */
	cell_release(&c);
}

static void diagnostic_on_another_hunk_proves_nothing(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.c", NULL);
	add_diag(&c, "fs/x.c", BLAME_PATCH, 2, NULL);
	check_judge_adapted(&c);
	assert_int_equal(hunk1(&c)->rule, RULE_ADAPTED);
	assert_false(hunk1(&c)->adapt->built); /* its file has a new one */
	assert_int_equal(check_adapted_open(&c.carry, ACCEPT_BUILT), 1);
	cell_release(&c);
}

static void clean_build_of_its_c_file_marks_it_built(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.c", NULL);
	add_diag(&c, "fs/other.c", BLAME_PATCH, 2, NULL);
	check_judge_adapted(&c);
	assert_int_equal(hunk1(&c)->rule, RULE_ADAPTED);
	assert_true(hunk1(&c)->adapt->built);
	assert_int_equal(check_adapted_open(&c.carry, ACCEPT_PERSON), 1);
	assert_int_equal(check_adapted_open(&c.carry, ACCEPT_BUILT), 0);
	assert_int_equal(check_adapted_open(&c.carry, ACCEPT_ALL), 0);
	cell_release(&c);
}

static void header_or_file_outside_targets_is_never_built(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.h", NULL);
	check_judge_adapted(&c);
	assert_false(hunk1(&c)->adapt->built);
	cell_release(&c);
	cell_init(&c, "lib/x.c", NULL);
	check_judge_adapted(&c);
	assert_false(hunk1(&c)->adapt->built);
	cell_release(&c);
}

static void failed_or_skipped_build_proves_nothing(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.c", NULL);
	c.build.failed = true;
	check_judge_adapted(&c);
	assert_false(hunk1(&c)->adapt->built);
	cell_release(&c);
	cell_init(&c, "fs/x.c", NULL);
	c.build.skipped = true;
	check_judge_adapted(&c);
	assert_false(hunk1(&c)->adapt->built);
	cell_release(&c);
}

static void accepted_by_a_person_never_fails(void **s)
{
	struct check_cell c;

	(void)s;
	cell_init(&c, "fs/x.c", NULL);
	hunk1(&c)->adapt->accepted = true;
	assert_int_equal(check_adapted_open(&c.carry, ACCEPT_PERSON), 0);
	cell_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			diagnostic_pinned_on_adapted_hunk_makes_it_a_conflict),
		cmocka_unit_test(note_at_adapted_hunk_makes_it_a_conflict),
		cmocka_unit_test(diagnostic_where_rule_1_moved_it_counts),
		cmocka_unit_test(split_hunks_are_judged_each_in_its_file),
		cmocka_unit_test(diagnostic_on_another_hunk_proves_nothing),
		cmocka_unit_test(clean_build_of_its_c_file_marks_it_built),
		cmocka_unit_test(header_or_file_outside_targets_is_never_built),
		cmocka_unit_test(failed_or_skipped_build_proves_nothing),
		cmocka_unit_test(accepted_by_a_person_never_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
