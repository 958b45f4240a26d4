#include "vdiff.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "mail.h"
#include "tree.h"

/* ---- patch-id ----------------------------------------------------------- */

/*
 * The diff of p written as git writes it ("diff --git a/X b/Y", mode and
 * rename lines, "---"/"+++", hunks), so that git's patch-id rules can run
 * over it line by line.
 */
static void git_form(struct buf *out, const struct patch *p)
{
	for (size_t i = 0; i < p->nr_files; i++) {
		const struct patch_file *f = &p->files[i];
		const char *o = f->old_path ? f->old_path : f->new_path;
		const char *n = f->new_path ? f->new_path : f->old_path;

		buf_addf(out, "diff --git a/%s b/%s\n", o, n);
		if (f->op == PATCH_ADD)
			buf_addf(out, "new file mode %06o\n",
				 f->new_mode ? f->new_mode : 0100644);
		else if (f->op == PATCH_DELETE)
			buf_addf(out, "deleted file mode %06o\n",
				 f->old_mode ? f->old_mode : 0100644);
		else if (f->old_mode && f->new_mode &&
			 f->old_mode != f->new_mode)
			buf_addf(out, "old mode %06o\nnew mode %06o\n",
				 f->old_mode, f->new_mode);
		if (f->op == PATCH_RENAME || f->op == PATCH_COPY) {
			const char *w = f->op == PATCH_RENAME ? "rename"
							      : "copy";
			buf_addf(out, "similarity index %u%%\n", f->similarity);
			buf_addf(out, "%s from %s\n%s to %s\n", w, o, w, n);
		}
		if (f->old_oid && f->new_oid)
			buf_addf(out, "index %s..%s\n", f->old_oid, f->new_oid);
		if (f->binary) {
			buf_addf(out, "Binary files %s%s and %s%s differ\n",
				 f->old_path ? "a/" : "",
				 f->old_path ? f->old_path : "/dev/null",
				 f->new_path ? "b/" : "",
				 f->new_path ? f->new_path : "/dev/null");
			continue;
		}
		if (!f->nr_hunks)
			continue;
		buf_addf(out, "--- %s%s\n+++ %s%s\n", f->old_path ? "a/" : "",
			 f->old_path ? f->old_path : "/dev/null",
			 f->new_path ? "b/" : "",
			 f->new_path ? f->new_path : "/dev/null");
		for (size_t h = 0; h < f->nr_hunks; h++) {
			const struct patch_hunk *ph = &f->hunks[h];
			buf_addf(out, "@@ -%lu,%lu +%lu,%lu @@\n",
				 ph->old_start, ph->old_count, ph->new_start,
				 ph->new_count);
			for (size_t l = 0; l < ph->nr_lines; l++) {
				buf_addc(out, ph->lines[l].kind);
				buf_addspan(out, ph->lines[l].text);
				buf_addc(out, '\n');
			}
		}
	}
}

struct pid {
	unsigned char sum[20];
	struct buf chunk;
};

/* Hash what was gathered and add it to the sum (20 bytes, with carry). */
static void pid_flush(struct pid *s)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	unsigned carry = 0;

	EVP_Digest(s->chunk.ptr, s->chunk.len, md, &len, EVP_sha1(), NULL);
	for (size_t i = 0; i < 20; i++) {
		carry += s->sum[i] + md[i];
		s->sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
	buf_reset(&s->chunk);
}

static void pid_add_nospace(struct pid *s, struct span l)
{
	for (size_t i = 0; i < l.len; i++)
		if (!isspace((unsigned char)l.ptr[i]))
			buf_addc(&s->chunk, l.ptr[i]);
}

/* "@@ -a[,b] +c[,d] @@": *before = b, *after = d (1 when left out). */
static bool hunk_counts(struct span l, long *before, long *after)
{
	const char *q = l.ptr + 4, *end = l.ptr + l.len;
	long n[2];

	for (int k = 0; k < 2; k++) {
		const char *s = q;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q < end && *q == ',') {
			s = ++q;
			while (q < end && isdigit((unsigned char)*q))
				q++;
		}
		if (q == s)
			return false;
		n[k] = strtol(s, NULL, 10);
		if (k == 0) {
			if (q + 1 >= end || q[0] != ' ' || q[1] != '+')
				return false;
			q += 2;
		}
	}
	*before = n[0];
	*after = n[1];
	return true;
}

void vdiff_patch_id(char hex[41], const struct patch *p)
{
	struct buf text = BUF_INIT;
	struct pid s = { { 0 }, BUF_INIT };
	struct cursor c;
	struct span l;
	long before = -1, after = -1;
	bool binary = false, any = false;
	struct buf pre = BUF_INIT, post = BUF_INIT;

	hex[0] = '\0';
	if (!p->nr_files)
		return;
	git_form(&text, p);
	/* git patch-id's rules, line by line, for a single patch */
	cursor_init(&c, text.ptr, text.len);
	while (cursor_next(&c, &l, NULL)) {
		if (before == -1) {
			if (span_starts_with(l, "Binary files")) {
				binary = true;
				before = 0;
				buf_add(&s.chunk, pre.ptr, pre.len);
				buf_add(&s.chunk, post.ptr, post.len);
				pid_flush(&s);
				continue;
			}
			if (span_starts_with(l, "index ")) {
				/* "index PRE..POST[ MODE]": kept for a binary
				 * file that may follow, as git keeps them */
				struct span v = { l.ptr + 6, l.len - 6 };
				const char *dots =
					memmem(v.ptr, v.len, "..", 2);
				if (dots) {
					const char *e = dots + 2;
					while (e < v.ptr + v.len && *e != ' ')
						e++;
					buf_reset(&pre);
					buf_add(&pre, v.ptr,
						(size_t)(dots - v.ptr));
					buf_reset(&post);
					buf_add(&post, dots + 2,
						(size_t)(e - dots - 2));
				}
				continue;
			}
			if (span_starts_with(l, "--- "))
				before = after = 1;
			else if (!l.len || !isalpha((unsigned char)l.ptr[0]))
				break;
		}
		if (binary) {
			if (span_starts_with(l, "diff ")) {
				binary = false;
				before = -1;
			}
			continue;
		}
		if (before == 0 && after == 0) {
			if (span_starts_with(l, "@@ -")) {
				if (!hunk_counts(l, &before, &after))
					before = after = 0;
				continue;
			}
			if (!span_starts_with(l, "diff "))
				break;
			pid_flush(&s);
			before = after = -1;
		}
		if (l.len && (l.ptr[0] == '-' || l.ptr[0] == ' '))
			before--;
		if (l.len && (l.ptr[0] == '+' || l.ptr[0] == ' '))
			after--;
		pid_add_nospace(&s, l);
		any = true;
	}
	pid_flush(&s);
	if (any)
		for (size_t i = 0; i < 20; i++) {
			static const char digits[] = "0123456789abcdef";
			hex[2 * i] = digits[s.sum[i] >> 4];
			hex[2 * i + 1] = digits[s.sum[i] & 15];
		}
	hex[any ? 40 : 0] = '\0';
	buf_release(&s.chunk);
	buf_release(&pre);
	buf_release(&post);
	buf_release(&text);
}

/* ---- range-diff's text of a patch -------------------------------------- */

void vdiff_text_init(struct vdiff_text *t)
{
	memset(t, 0, sizeof(*t));
	buf_init(&t->text, 0);
}

void vdiff_text_release(struct vdiff_text *t)
{
	buf_release(&t->text);
	memset(t, 0, sizeof(*t));
}

/* Columns of a UTF-8 text: one per character (git counts wide ones as
 * two; tabs after such characters are rare in commit messages). */
static size_t columns(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/*
 * One message line as git log --pretty=medium shows it and range-diff
 * keeps it: four spaces, tabs expanded to 8 columns, trailing white space
 * dropped (a blank line becomes empty).
 */
static void add_message_line(struct buf *out, struct span line)
{
	struct buf l = BUF_INIT;
	size_t start = 0;

	for (size_t i = 0; i < line.len; i++) {
		if (line.ptr[i] != '\t')
			continue;
		buf_add(&l, line.ptr + start, i - start);
		do
			buf_addc(&l, ' ');
		while (columns(l.ptr, l.len) % 8);
		start = i + 1;
	}
	buf_add(&l, line.ptr + start, line.len - start);
	buf_rtrim(&l);
	if (l.len) {
		buf_adds(out, "    ");
		buf_add(out, l.ptr, l.len);
	}
	buf_addc(out, '\n');
	buf_release(&l);
}

static int cmp_file_path(const void *x, const void *y)
{
	const struct patch_file *const *a = x, *const *b = y;
	const char *pa = (*a)->op == PATCH_DELETE ? (*a)->old_path
						   : (*a)->new_path;
	const char *pb = (*b)->op == PATCH_DELETE ? (*b)->old_path
						   : (*b)->new_path;
	int c = strcmp(pa ? pa : "", pb ? pb : "");

	/* stable: the patch's own order among equal names */
	return c ? c : (*a < *b ? -1 : *a > *b);
}

static void add_file(struct vdiff_text *t, const struct patch_file *f)
{
	struct buf *b = &t->text;
	const char *name = f->op == PATCH_DELETE ? f->old_path : f->new_path;

	buf_addc(b, '\n');
	if (!t->diff_offset)
		t->diff_offset = b->len;
	buf_adds(b, " ## ");
	if (f->op == PATCH_ADD)
		buf_addf(b, "%s (new)", f->new_path);
	else if (f->op == PATCH_DELETE)
		buf_addf(b, "%s (deleted)", f->old_path);
	else if (f->op == PATCH_RENAME)
		buf_addf(b, "%s => %s", f->old_path, f->new_path);
	else
		buf_adds(b, f->new_path);
	if (f->old_mode && f->new_mode && f->old_mode != f->new_mode)
		buf_addf(b, " (mode change %06o => %06o)", f->old_mode,
			 f->new_mode);
	buf_adds(b, " ##\n");
	t->diffsize++;
	if (f->binary) {
		buf_addf(b, " Binary files %s and %s differ\n",
			 f->old_path ? f->old_path : "/dev/null",
			 f->new_path ? f->new_path : "/dev/null");
		t->diffsize++;
	}
	for (size_t h = 0; h < f->nr_hunks; h++) {
		const struct patch_hunk *ph = &f->hunks[h];

		buf_adds(b, "@@");
		if (ph->section.len) {
			buf_addf(b, " %s: ", name);
			buf_addspan(b, ph->section);
		}
		buf_addc(b, '\n');
		t->diffsize++;
		for (size_t l = 0; l < ph->nr_lines; l++) {
			buf_addc(b, ph->lines[l].kind);
			buf_addspan(b, ph->lines[l].text);
			buf_addc(b, '\n');
			t->diffsize++;
			if (ph->lines[l].no_eol) {
				buf_adds(b, " \\ No newline at end of file\n");
				t->diffsize++;
			}
		}
	}
}

void vdiff_text_build(struct vdiff_text *t, const struct patch *p)
{
	struct buf *b = &t->text;
	const struct patch_file **files;
	struct cursor c;
	struct span line;

	buf_reset(b);
	t->diff_offset = 0;
	t->diffsize = 0;
	buf_adds(b, " ## Metadata ##\nAuthor: ");
	if (p->author_name)
		buf_adds(b, p->author_name);
	if (p->author_email)
		buf_addf(b, "%s<%s>", p->author_name ? " " : "",
			 p->author_email);
	buf_adds(b, "\n\n ## Commit message ##\n");
	add_message_line(b, span_from(p->subject ? p->subject : ""));
	if (p->message.len) {
		buf_addc(b, '\n');
		cursor_init(&c, p->message.ptr, p->message.len);
		while (cursor_next(&c, &line, NULL))
			add_message_line(b, line);
	}
	/* git log shows the files of a commit in path order */
	files = xcalloc(p->nr_files + 1, sizeof(*files));
	for (size_t i = 0; i < p->nr_files; i++)
		files[i] = &p->files[i];
	qsort(files, p->nr_files, sizeof(*files), cmp_file_path);
	for (size_t i = 0; i < p->nr_files; i++)
		add_file(t, files[i]);
	free(files);
}

static struct span diff_part(const struct vdiff_text *t)
{
	return (struct span){ t->text.ptr + t->diff_offset,
			      t->text.len - t->diff_offset };
}

int vdiff_diffsize(int *size, struct span a, struct span b, struct err *err)
{
	struct tree_diff d;
	int error;

	if ((error = tree_diff_text(&d, a, b, 3, err)) < 0)
		return error;
	*size = (int)(d.nr_hunks + d.nr_lines);
	if (*size > VDIFF_COST_MAX)
		*size = VDIFF_COST_MAX;
	tree_diff_release(&d);
	return 0;
}

/* ---- minimal assignment ------------------------------------------------ */

#define COST(c, r) cost[(size_t)(c) + (size_t)n * (size_t)(r)]

/*
 * Jonker and Volgenant (1987): column reduction, reduction transfer, two
 * rounds of augmenting row reduction, then a shortest augmenting path from
 * every row still free.  Each step takes the same column among equal
 * costs as git's compute_assignment does, so that range-diff's pairs come
 * out; that includes git's way of ending a path found in the first
 * minimum set at the last column it scanned.
 */
void vdiff_assign(int n, const int *cost, int *col2row, int *row2col)
{
	int *v, *d, *pred, *todo, *free_rows;
	bool *twice;
	int nfree = 0;

	if (n < 2) {
		for (int i = 0; i < n; i++)
			col2row[i] = row2col[i] = 0;
		return;
	}
	v = xcalloc((size_t)n, sizeof(int));
	d = xcalloc((size_t)n, sizeof(int));
	pred = xcalloc((size_t)n, sizeof(int));
	todo = xcalloc((size_t)n, sizeof(int));
	free_rows = xcalloc((size_t)n, sizeof(int));
	twice = xcalloc((size_t)n, sizeof(bool));
	for (int i = 0; i < n; i++)
		col2row[i] = row2col[i] = -1;

	/* column reduction, from the last column: a column's cheapest row
	 * (the first of equals) takes it unless it has one already */
	for (int c = n - 1; c >= 0; c--) {
		int best = 0;
		for (int r = 1; r < n; r++)
			if (COST(c, r) < COST(c, best))
				best = r;
		v[c] = COST(c, best);
		if (row2col[best] < 0) {
			row2col[best] = c;
			col2row[c] = best;
		} else
			twice[best] = true;
	}

	/* reduction transfer: a row that got exactly one column passes the
	 * slack to its second best on to that column's price */
	for (int r = 0; r < n; r++) {
		int c1 = row2col[r], min = INT_MAX;

		if (c1 < 0) {
			free_rows[nfree++] = r;
			continue;
		}
		if (twice[r])
			continue;
		for (int c = 0; c < n; c++)
			if (c != c1 && COST(c, r) - v[c] < min)
				min = COST(c, r) - v[c];
		v[c1] -= min;
	}
	if (!nfree)
		goto out;

	/* augmenting row reduction, two rounds */
	for (int round = 0; round < 2; round++) {
		int k = 0, todo_nr = nfree;

		nfree = 0;
		while (k < todo_nr) {
			int r = free_rows[k++];
			int c1 = 0, c2 = -1, u1 = COST(0, r) - v[0],
			    u2 = INT_MAX;
			int r0;

			for (int c = 1; c < n; c++) {
				int h = COST(c, r) - v[c];
				if (h >= u2)
					continue;
				if (h > u1) {
					u2 = h;
					c2 = c;
				} else {
					u2 = u1;
					c2 = c1;
					u1 = h;
					c1 = c;
				}
			}
			if (c2 < 0) {
				c2 = c1;
				u2 = u1;
			}
			r0 = col2row[c1];
			if (u1 < u2)
				v[c1] -= u2 - u1;
			else if (r0 >= 0) {
				c1 = c2;
				r0 = col2row[c1];
			}
			/* a row pushed out: looked at again at once when the
			 * price fell, else in the next round */
			if (r0 >= 0) {
				if (u1 < u2)
					free_rows[--k] = r0;
				else
					free_rows[nfree++] = r0;
			}
			row2col[r] = c1;
			col2row[c1] = r;
		}
	}

	/* shortest augmenting paths (Dijkstra on reduced costs) */
	for (int f = 0; f < nfree; f++) {
		int r1 = free_rows[f], low = 0, up = 0, last = 0, min = 0;
		int end = -1; /* the column last looked at */

		for (int c = 0; c < n; c++) {
			d[c] = COST(c, r1) - v[c];
			pred[c] = r1;
			todo[c] = c;
		}
		for (;;) {
			if (low == up) {
				/* todo[low..up): the columns at the minimum */
				last = low;
				min = d[todo[up++]];
				for (int k = up; k < n; k++) {
					int c = todo[k];
					end = c;
					if (d[c] > min)
						continue;
					if (d[c] < min) {
						up = low;
						min = d[c];
					}
					todo[k] = todo[up];
					todo[up++] = c;
				}
				for (int k = low; k < up; k++)
					if (col2row[todo[k]] < 0)
						goto found;
			}
			/* relax through the row of the next minimum column */
			{
				int c1 = todo[low++], r = col2row[c1];
				int u1 = COST(c1, r) - v[c1] - min;

				for (int k = up; k < n; k++) {
					int c = todo[k],
					    h = COST(c, r) - v[c] - u1;
					end = c;
					if (h >= d[c])
						continue;
					d[c] = h;
					pred[c] = r;
					if (h == min) {
						if (col2row[c] < 0)
							goto found;
						todo[k] = todo[up];
						todo[up++] = c;
					}
				}
			}
		}
found:
		if (end < 0)
			BUG("no column to end the augmenting path at");
		for (int k = 0; k < last; k++)
			v[todo[k]] += d[todo[k]] - min;
		for (;;) {
			int r = pred[end], next = row2col[r];
			col2row[end] = r;
			row2col[r] = end;
			end = next;
			if (r == r1)
				break;
		}
	}
out:
	free(v);
	free(d);
	free(pred);
	free(todo);
	free(free_rows);
	free(twice);
}

/* ---- pairing ------------------------------------------------------------ */

void vdiff_release(struct vdiff *d)
{
	for (size_t i = 0; d->a && i < d->a->nr; i++)
		vdiff_text_release(&d->ta[i]);
	for (size_t j = 0; d->b && j < d->b->nr; j++)
		vdiff_text_release(&d->tb[j]);
	free(d->ta);
	free(d->tb);
	free(d->ida);
	free(d->idb);
	free(d->a2b);
	free(d->b2a);
	free(d->ra);
	free(d->rb);
	free(d->pairs);
	for (size_t i = 0; d->subj_a && i < d->a->nr; i++)
		free(d->subj_a[i]);
	for (size_t j = 0; d->subj_b && j < d->b->nr; j++)
		free(d->subj_b[j]);
	free(d->subj_a);
	free(d->subj_b);
	memset(d, 0, sizeof(*d));
}

char vdiff_status_char(enum vdiff_status s)
{
	return "=!+-~"[s];
}

const char *vdiff_status_name(enum vdiff_status s)
{
	static const char *const names[] = { "unchanged", "changed", "new",
					     "dropped", "rewritten" };
	return names[s];
}

const char *vdiff_by_name(enum vdiff_by b)
{
	switch (b) {
	case VDIFF_BY_PATCH_ID:
		return "patch-id";
	case VDIFF_BY_SUBJECT:
		return "subject";
	case VDIFF_BY_SIMILARITY:
		return "similarity";
	case VDIFF_BY_NONE:
		break;
	}
	return NULL;
}

static bool span_equal(struct span a, struct span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* Lower-case, white space collapsed: "Btrfs:  Fix X" is "btrfs: fix x". */
static char *norm_subject(const char *s)
{
	struct buf b = BUF_INIT;
	bool space = false;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isspace(c)) {
			space = b.len > 0;
			continue;
		}
		if (space)
			buf_addc(&b, ' ');
		space = false;
		buf_addc(&b, (char)tolower(c));
	}
	return buf_detach(&b, NULL);
}

/* subjects normalised once: they are compared O(left-overs^2) times */
static bool same_subject(const struct vdiff *d, size_t i, size_t j)
{
	return *d->subj_a[i] && !strcmp(d->subj_a[i], d->subj_b[j]);
}

static bool same_id(const struct vdiff *d, size_t i, size_t j)
{
	return d->ida[i][0] && !strcmp(d->ida[i], d->idb[j]);
}

static enum vdiff_by common(const struct vdiff *d, size_t i, size_t j)
{
	if (same_id(d, i, j))
		return VDIFF_BY_PATCH_ID;
	if (same_subject(d, i, j))
		return VDIFF_BY_SUBJECT;
	return VDIFF_BY_SIMILARITY;
}

static int creation_cost(const struct vdiff *d, const struct vdiff_text *t)
{
	return (int)((long)t->diffsize * (long)d->creation_factor / 100);
}

static uint64_t span_hash(struct span s)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	for (size_t i = 0; i < s.len; i++) {
		h ^= (unsigned char)s.ptr[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The old patches grouped by their diff text, each group newest first. */
struct text_groups {
	size_t *bucket; /* first group of a hash bucket, or SIZE_MAX */
	size_t mask;
	size_t *first, *next_group; /* per group: its newest patch left
				     * (SIZE_MAX: all taken), chain */
	size_t *rep;                /* per group: a patch with its text */
	size_t *next;               /* per old patch: the next older one */
	size_t nr;
};

static size_t find_group(struct vdiff *d, const struct text_groups *g,
			 struct span text, size_t b)
{
	for (size_t k = g->bucket[b]; k != SIZE_MAX; k = g->next_group[k]) {
		d->nr_text_compared++;
		if (span_equal(diff_part(&d->ta[g->rep[k]]), text))
			return k;
	}
	return SIZE_MAX;
}

static void group_texts(struct vdiff *d, struct text_groups *g)
{
	size_t na = d->a->nr, size = 16;

	while (size < 2 * na)
		size *= 2;
	g->mask = size - 1;
	g->bucket = xmalloc(size * sizeof(size_t));
	memset(g->bucket, 0xff, size * sizeof(size_t));
	g->first = xcalloc(na + 1, sizeof(size_t));
	g->next_group = xcalloc(na + 1, sizeof(size_t));
	g->next = xcalloc(na + 1, sizeof(size_t));
	g->rep = xcalloc(na + 1, sizeof(size_t));
	g->nr = 0;
	for (size_t i = 0; i < na; i++) {
		struct span t = diff_part(&d->ta[i]);
		size_t b = (size_t)span_hash(t) & g->mask;
		size_t k = find_group(d, g, t, b);

		if (k == SIZE_MAX) {
			k = g->nr++;
			g->rep[k] = i;
			g->next_group[k] = g->bucket[b];
			g->bucket[b] = k;
			g->next[i] = SIZE_MAX;
		} else
			g->next[i] = g->first[k];
		g->first[k] = i; /* the newest first */
	}
}

/* range-diff's exact matches: the same diff text, the last equal old
 * patch first (the order of git's hash map); a hash of the texts finds
 * them, each text compared about once. */
static void pair_exact(struct vdiff *d)
{
	struct text_groups g;

	if (!d->a->nr)
		return;
	group_texts(d, &g);
	for (size_t j = 0; j < d->b->nr; j++) {
		struct span t = diff_part(&d->tb[j]);
		size_t k = find_group(d, &g, t, (size_t)span_hash(t) & g.mask);
		size_t i;

		if (k == SIZE_MAX || (i = g.first[k]) == SIZE_MAX)
			continue;
		d->a2b[i] = (long)j;
		d->b2a[j] = (long)i;
		g.first[k] = g.next[i]; /* taken: the next older one */
	}
	free(g.bucket);
	free(g.first);
	free(g.next_group);
	free(g.next);
	free(g.rep);
}

/* Indexes of the patches without a partner. */
static size_t left_over(size_t **out, const long *partner, size_t nr)
{
	size_t n = 0;

	*out = xcalloc(nr + 1, sizeof(size_t));
	for (size_t i = 0; i < nr; i++)
		if (partner[i] < 0)
			(*out)[n++] = i;
	return n;
}

/*
 * range-diff's cost matrix, then the assignment, over what is left: the
 * exact pairs cost 0 with each other and COST_MAX with the rest in git's
 * full matrix, so leaving them out changes no choice but saves (na + nb)^2
 * cells.  Columns are the old version's patches, rows the new one's; a
 * column or row past the left-overs stands for "no partner".
 */
static int pair_by_similarity(struct vdiff *d, struct err *err)
{
	size_t *la, *lb, na, nb, n;
	int *cost = NULL, *a2b = NULL, *b2a = NULL;
	int error = 0;

	na = d->nr_left_a = left_over(&la, d->a2b, d->a->nr);
	nb = d->nr_left_b = left_over(&lb, d->b2a, d->b->nr);
	n = na + nb;
	if (!na || !nb)
		goto out; /* each left-over is new or dropped */
	if (na * nb > VDIFF_MAX_SIMILARITY_PAIRS) {
		d->similarity_skipped = true;
		goto out;
	}
	cost = xcalloc(n * n, sizeof(int));
	d->nr_cells = n * n;
	a2b = xcalloc(n, sizeof(int));
	b2a = xcalloc(n, sizeof(int));
	for (size_t i = 0; i < na && !error; i++) {
		int c = 0;
		for (size_t j = 0; j < nb && !error; j++) {
			d->nr_diffsize++;
			error = vdiff_diffsize(&c, diff_part(&d->ta[la[i]]),
					       diff_part(&d->tb[lb[j]]), err);
			cost[i + n * j] = c;
		}
		c = creation_cost(d, &d->ta[la[i]]);
		for (size_t j = nb; j < n; j++)
			cost[i + n * j] = c;
	}
	for (size_t j = 0; j < nb; j++) {
		int c = creation_cost(d, &d->tb[lb[j]]);
		for (size_t i = na; i < n; i++)
			cost[i + n * j] = c;
	}
	if (!error) {
		vdiff_assign((int)n, cost, a2b, b2a);
		for (size_t i = 0; i < na; i++)
			if (a2b[i] >= 0 && (size_t)a2b[i] < nb) {
				d->a2b[la[i]] = (long)lb[a2b[i]];
				d->b2a[lb[a2b[i]]] = (long)la[i];
			}
	}
out:
	free(cost);
	free(a2b);
	free(b2a);
	free(la);
	free(lb);
	return error;
}

/*
 * A dropped and a new patch with the same patch-id, or else the same
 * subject, that no other left-over patch shares: one patch rewritten.
 */
static void link_rewritten(struct vdiff *d)
{
	size_t na = d->a->nr, nb = d->b->nr;

	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < nb; j++) {
			long found = -1;
			int n = 0;

			if (d->b2a[j] >= 0 || d->rb[j] >= 0)
				continue;
			for (size_t i = 0; i < na; i++) {
				if (d->a2b[i] >= 0 || d->ra[i] >= 0)
					continue;
				if (pass ? same_subject(d, i, j)
					 : same_id(d, i, j)) {
					found = (long)i;
					n++;
				}
			}
			for (size_t k = 0; k < nb && n == 1; k++)
				if (k != j && d->b2a[k] < 0 && d->rb[k] < 0 &&
				    (pass ? same_subject(d, (size_t)found, k)
					  : same_id(d, (size_t)found, k)))
					n = 2;
			if (n != 1)
				continue;
			d->ra[found] = (long)j;
			d->rb[j] = found;
		}
}

/* Pairs out of the longest run that keeps its order are "moved". */
static void mark_moved(struct vdiff *d)
{
	size_t nb = d->b->nr, m = 0, len = 0;
	long *seq = xcalloc(nb + 1, sizeof(long));   /* old index per pair */
	size_t *at = xcalloc(nb + 1, sizeof(size_t)); /* its new index */
	size_t *tail = xcalloc(nb + 1, sizeof(size_t));
	long *prev = xcalloc(nb + 1, sizeof(long));
	bool *keep = xcalloc(nb + 1, sizeof(bool));
	unsigned char *kept_b = xcalloc(nb + 1, 1); /* 1 kept, 2 moved */

	for (size_t j = 0; j < nb; j++) {
		long i = d->b2a[j] >= 0 ? d->b2a[j] : d->rb[j];
		if (i >= 0) {
			seq[m] = i;
			at[m++] = j;
		}
	}
	/* longest increasing subsequence (patience), the first one found */
	for (size_t k = 0; k < m; k++) {
		size_t lo = 0, hi = len;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (seq[tail[mid]] < seq[k])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[k] = lo ? (long)tail[lo - 1] : -1;
		tail[lo] = k;
		if (lo == len)
			len++;
	}
	for (long k = len ? (long)tail[len - 1] : -1; k >= 0; k = prev[k])
		keep[k] = true;
	/* keep[k] by the new index at[k]: one look-up per pair */
	for (size_t k = 0; k < m; k++)
		kept_b[at[k]] = keep[k] ? 1 : 2;
	for (size_t p = 0; p < d->nr_pairs; p++) {
		struct vdiff_pair *vp = &d->pairs[p];
		if (vp->a < 0 || vp->b < 0)
			continue;
		if (kept_b[vp->b] == 2) {
			vp->moved = true;
			d->nr_moved++;
		}
	}
	free(seq);
	free(at);
	free(tail);
	free(prev);
	free(keep);
	free(kept_b);
}

static void add_pair(struct vdiff *d, long i, long j)
{
	struct vdiff_pair *p = &d->pairs[d->nr_pairs++];
	const struct vdiff_text *ta, *tb;
	size_t ma, mb;

	memset(p, 0, sizeof(*p));
	p->a = i;
	p->b = j;
	if (i < 0) {
		p->status = VDIFF_NEW;
		d->nr_new++;
		return;
	}
	if (j < 0) {
		p->status = VDIFF_DROPPED;
		d->nr_dropped++;
		return;
	}
	p->by = common(d, (size_t)i, (size_t)j);
	ta = &d->ta[i];
	tb = &d->tb[j];
	ma = ta->diff_offset ? ta->diff_offset : ta->text.len;
	mb = tb->diff_offset ? tb->diff_offset : tb->text.len;
	p->diff_changed = !span_equal(diff_part(ta), diff_part(tb));
	p->message_changed = ma != mb || memcmp(ta->text.ptr, tb->text.ptr, ma);
	if (d->a2b[i] != j) {
		p->status = VDIFF_REWRITTEN;
		d->nr_rewritten++;
	} else if (p->diff_changed || p->message_changed) {
		p->status = VDIFF_CHANGED;
		d->nr_changed++;
	} else {
		p->status = VDIFF_SAME;
		d->nr_same++;
	}
}

/* range-diff's order: the new version's, and an old patch without a
 * partner once the old patches before it have been shown. */
static void order_pairs(struct vdiff *d)
{
	size_t na = d->a->nr, nb = d->b->nr, i = 0, j = 0;
	bool *shown = xcalloc(na + 1, sizeof(bool));

	d->pairs = xcalloc(na + nb + 1, sizeof(*d->pairs));
	while (i < na || j < nb) {
		long partner;

		while (i < na && shown[i])
			i++;
		if (i < na && d->a2b[i] < 0 && d->ra[i] < 0) {
			add_pair(d, (long)i++, -1);
			continue;
		}
		while (j < nb && d->b2a[j] < 0 && d->rb[j] < 0)
			add_pair(d, -1, (long)j++);
		if (j < nb) {
			partner = d->b2a[j] >= 0 ? d->b2a[j] : d->rb[j];
			add_pair(d, partner, (long)j);
			shown[partner] = true;
			j++;
		}
	}
	free(shown);
}

int vdiff_compute(struct vdiff *d, const struct series_version *a,
		  const struct series_version *b, const struct vdiff_opts *opts,
		  struct err *err)
{
	size_t na = a->nr, nb = b->nr;
	int error;

	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	d->creation_factor = opts && opts->creation_factor
				     ? opts->creation_factor
				     : VDIFF_CREATION_FACTOR;
	d->ta = xcalloc(na + 1, sizeof(*d->ta));
	d->tb = xcalloc(nb + 1, sizeof(*d->tb));
	d->ida = xcalloc(na + 1, sizeof(*d->ida));
	d->idb = xcalloc(nb + 1, sizeof(*d->idb));
	d->a2b = xcalloc(na + 1, sizeof(long));
	d->b2a = xcalloc(nb + 1, sizeof(long));
	d->ra = xcalloc(na + 1, sizeof(long));
	d->rb = xcalloc(nb + 1, sizeof(long));
	d->subj_a = xcalloc(na + 1, sizeof(char *));
	d->subj_b = xcalloc(nb + 1, sizeof(char *));
	for (size_t i = 0; i < na; i++)
		d->subj_a[i] = norm_subject(a->items[i].patch.subject);
	for (size_t j = 0; j < nb; j++)
		d->subj_b[j] = norm_subject(b->items[j].patch.subject);
	for (size_t i = 0; i < na; i++) {
		vdiff_text_init(&d->ta[i]);
		vdiff_text_build(&d->ta[i], &a->items[i].patch);
		vdiff_patch_id(d->ida[i], &a->items[i].patch);
		d->a2b[i] = d->ra[i] = -1;
	}
	for (size_t j = 0; j < nb; j++) {
		vdiff_text_init(&d->tb[j]);
		vdiff_text_build(&d->tb[j], &b->items[j].patch);
		vdiff_patch_id(d->idb[j], &b->items[j].patch);
		d->b2a[j] = d->rb[j] = -1;
	}
	pair_exact(d);
	if ((error = pair_by_similarity(d, err)) < 0) {
		vdiff_release(d);
		return error;
	}
	link_rewritten(d);
	order_pairs(d);
	mark_moved(d);
	return 0;
}

/* ---- interdiff ---------------------------------------------------------- */

struct lines {
	struct span *l;
	size_t nr;
};

static void split_lines(struct lines *ls, struct span text)
{
	struct cursor c;
	struct span line;
	size_t alloc = 0;

	memset(ls, 0, sizeof(*ls));
	cursor_init(&c, text.ptr, text.len);
	while (cursor_next(&c, &line, NULL)) {
		ALLOC_GROW(ls->l, ls->nr + 1, alloc);
		ls->l[ls->nr++] = line;
	}
}

/* range-diff's section of a hunk: the last " ## X ##" or "@@ X" line
 * before it (80 bytes at most, as git's hunk headers). */
static struct span section_before(const struct lines *ls, size_t first)
{
	for (size_t k = first; k-- > 0;) {
		struct span l = ls->l[k], s = SPAN_NULL;

		if (l.len >= 7 && span_starts_with(l, " ## ") &&
		    !memcmp(l.ptr + l.len - 3, " ##", 3))
			s = (struct span){ l.ptr + 4, l.len - 7 };
		else if (span_starts_with(l, "@@ "))
			s = (struct span){ l.ptr + 3, l.len - 3 };
		else if (l.len > 3 && !memcmp(l.ptr + 1, "@@ ", 3))
			s = (struct span){ l.ptr + 4, l.len - 4 };
		if (s.ptr) {
			if (s.len > 80)
				s.len = 80;
			return s;
		}
	}
	return SPAN_NULL;
}

int vdiff_interdiff(struct buf *out, size_t *added, size_t *removed,
		    const struct vdiff *d, const struct vdiff_pair *p,
		    unsigned indent, struct err *err)
{
	struct span ta, tb;
	struct lines la, lb;
	struct tree_diff td;
	size_t nadd = 0, ndel = 0;
	int error;

	if (p->a < 0 || p->b < 0)
		BUG("interdiff of an unpaired patch");
	ta = (struct span){ d->ta[p->a].text.ptr, d->ta[p->a].text.len };
	tb = (struct span){ d->tb[p->b].text.ptr, d->tb[p->b].text.len };
	if ((error = tree_diff_text(&td, ta, tb, 3, err)) < 0)
		return error;
	split_lines(&la, ta);
	split_lines(&lb, tb);
	for (size_t h = 0; h < td.nr_hunks; h++) {
		const struct tree_diff_hunk *th = &td.hunks[h];
		size_t first = th->old_count ? th->old_start
					     : th->old_start + 1;
		struct span sec = section_before(&la, first ? first - 1 : 0);

		buf_addf(out, "%*s@@", (int)indent, "");
		if (sec.ptr) {
			buf_addc(out, ' ');
			buf_addspan(out, sec);
		}
		buf_addc(out, '\n');
		for (size_t k = th->first; k < th->first + th->nr; k++) {
			const struct tree_diff_line *l = &td.lines[k];
			struct span text = l->kind == '+'
						   ? lb.l[l->new_no - 1]
						   : la.l[l->old_no - 1];
			buf_addf(out, "%*s%c", (int)indent, "", l->kind);
			buf_addspan(out, text);
			buf_addc(out, '\n');
			nadd += l->kind == '+';
			ndel += l->kind == '-';
		}
	}
	if (added)
		*added = nadd;
	if (removed)
		*removed = ndel;
	free(la.l);
	free(lb.l);
	tree_diff_release(&td);
	return 0;
}

/* ---- kcarry-diff/1 ------------------------------------------------------ */

/* A JSON string (NULL: null); bytes that are not UTF-8 become U+FFFD. */
static json_t *jstr(const char *s)
{
	struct buf u = BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	/* a patch quoting Latin-1 code, say */
	mail_to_utf8(&u, s, strlen(s), "UTF-8");
	j = json_stringn(u.ptr, u.len);
	buf_release(&u);
	return j ? j : json_null();
}

static json_t *side_json(const struct series_version *v, char (*ids)[41],
			 long i)
{
	const struct series_item *it;
	json_t *o;

	if (i < 0)
		return json_null();
	it = &v->items[i];
	o = json_object();
	json_object_set_new(o, "index", json_integer(i + 1));
	json_object_set_new(o, "file", jstr(it->file));
	json_object_set_new(o, "subject", jstr(it->patch.subject));
	json_object_set_new(o, "patch_id", ids[i][0] ? jstr(ids[i])
						      : json_null());
	return o;
}

int vdiff_json(char **out, const struct vdiff *d, bool stat_only,
	       struct err *err)
{
	json_t *doc = json_object(), *pairs = json_array(), *counts, *side;
	int error = 0;

	json_object_set_new(doc, "schema", json_string(VDIFF_SCHEMA));
	json_object_set_new(doc, "series", jstr(d->b->name));
	side = json_object();
	json_object_set_new(side, "version", jstr(d->a->version));
	json_object_set_new(side, "patches",
			    json_integer((json_int_t)d->a->nr));
	json_object_set_new(doc, "old", side);
	side = json_object();
	json_object_set_new(side, "version", jstr(d->b->version));
	json_object_set_new(side, "patches",
			    json_integer((json_int_t)d->b->nr));
	json_object_set_new(doc, "new", side);
	json_object_set_new(doc, "creation_factor",
			    json_integer(d->creation_factor));
	counts = json_object();
	json_object_set_new(counts, "unchanged",
			    json_integer((json_int_t)d->nr_same));
	json_object_set_new(counts, "changed",
			    json_integer((json_int_t)d->nr_changed));
	json_object_set_new(counts, "new", json_integer((json_int_t)d->nr_new));
	json_object_set_new(counts, "dropped",
			    json_integer((json_int_t)d->nr_dropped));
	json_object_set_new(counts, "rewritten",
			    json_integer((json_int_t)d->nr_rewritten));
	json_object_set_new(counts, "moved",
			    json_integer((json_int_t)d->nr_moved));
	json_object_set_new(doc, "counts", counts);
	for (size_t k = 0; k < d->nr_pairs && !error; k++) {
		const struct vdiff_pair *p = &d->pairs[k];
		json_t *o = json_object();
		bool paired = p->a >= 0 && p->b >= 0;

		json_object_set_new(o, "status",
				    json_string(vdiff_status_name(p->status)));
		json_object_set_new(o, "old", side_json(d->a, d->ida, p->a));
		json_object_set_new(o, "new", side_json(d->b, d->idb, p->b));
		json_object_set_new(o, "common",
				    paired ? json_string(vdiff_by_name(p->by))
					   : json_null());
		json_object_set_new(o, "moved", json_boolean(p->moved));
		json_object_set_new(o, "diff_changed",
				    json_boolean(p->diff_changed));
		json_object_set_new(o, "message_changed",
				    json_boolean(p->message_changed));
		if (p->status == VDIFF_CHANGED ||
		    p->status == VDIFF_REWRITTEN) {
			struct buf idiff = BUF_INIT;
			size_t add = 0, del = 0;
			json_t *st = json_object();

			error = vdiff_interdiff(&idiff, &add, &del, d, p, 0,
						err);
			json_object_set_new(st, "added",
					    json_integer((json_int_t)add));
			json_object_set_new(st, "removed",
					    json_integer((json_int_t)del));
			json_object_set_new(o, "interdiff_stat", st);
			json_object_set_new(o, "interdiff",
					    stat_only ? json_null()
						      : jstr(idiff.ptr));
			buf_release(&idiff);
		} else {
			json_object_set_new(o, "interdiff_stat", json_null());
			json_object_set_new(o, "interdiff", json_null());
		}
		json_array_append_new(pairs, o);
	}
	json_object_set_new(doc, "pairs", pairs);
	if (!error)
		*out = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return error;
}
