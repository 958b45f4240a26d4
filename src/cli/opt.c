#include "opt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void opt_list_release(struct opt_list *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static const char *opt_name(struct buf *b, const struct opt *o)
{
	buf_reset(b);
	if (o->long_name)
		buf_addf(b, "--%s", o->long_name);
	else
		buf_addf(b, "-%c", o->short_name);
	return b->ptr;
}

/* value2: the second value of an OPT_PAIR */
static int take(const struct opt *o, void *base, const char *value,
		const char *value2, struct err *err)
{
	void *t = (char *)base + o->offset;
	struct buf name = BUF_INIT;
	int error = 0;

	switch (o->kind) {
	case OPT_FLAG:
		*(bool *)t = !o->negate;
		break;
	case OPT_PAIR:
		((const char **)t)[0] = value;
		((const char **)t)[1] = value2;
		break;
	case OPT_STRING:
		*(const char **)t = value;
		break;
	case OPT_UINT: {
		char *end;
		unsigned long n = strtoul(value, &end, 10);
		if (!*value || *end || value[0] == '-' || n < o->min ||
		    n > o->max)
			error = err_set(err, ERR_USAGE,
					"%s takes a number from %u to %u, not "
					"'%s'",
					opt_name(&name, o), o->min, o->max,
					value);
		else
			*(unsigned *)t = (unsigned)n;
		break;
	}
	case OPT_LIST: {
		struct opt_list *l = t;
		ALLOC_GROW(l->items, l->nr + 1, l->alloc);
		l->items[l->nr++] = value;
		break;
	}
	case OPT_CHOICE: {
		struct buf all = BUF_INIT;
		int k;
		for (k = 0; o->choices[k] && strcmp(o->choices[k], value); k++)
			;
		if (o->choices[k]) {
			*(int *)t = k;
			break;
		}
		for (int j = 0; o->choices[j]; j++)
			buf_addf(&all, "%s%s", j ? ", " : "", o->choices[j]);
		error = err_set(err, ERR_USAGE, "%s: unknown value '%s' (%s)",
				opt_name(&name, o), value, all.ptr);
		buf_release(&all);
		break;
	}
	case OPT_FUNC:
		if ((error = o->parse(value, t, err)) < 0)
			err_prefix(err, "%s", opt_name(&name, o));
		break;
	case OPT_COUNT:
		(*(int *)t)++;
		break;
	case OPT_END:
		BUG("OPT_END taken");
	}
	for (size_t k = 0; !error && k < 2; k++)
		if (o->also[k])
			*(bool *)((char *)base + o->also[k] - 1) = true;
	buf_release(&name);
	return error;
}

static const struct opt *find_long(const struct opt *table, const char *s,
				   size_t n)
{
	for (const struct opt *o = table; o->kind != OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == n &&
		    !strncmp(o->long_name, s, n))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *table, char c)
{
	for (const struct opt *o = table; o->kind != OPT_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

/* How often "-vv" names an OPT_COUNT: its letter repeated, up to max
 * times; 0 for anything else ("-vx", "-vvv" past max). */
static unsigned repeats(const struct opt *o, const char *a)
{
	size_t n = strlen(a + 1);

	if (strspn(a + 1, (char[]){ o->short_name, '\0' }) != n ||
	    n > o->max)
		return 0;
	return (unsigned)n;
}

int opt_next(const struct opt *table, void *base, int argc, char **argv,
	     int *i, struct err *err)
{
	const char *a = argv[*i], *value = NULL, *value2 = NULL;
	const struct opt *o = NULL;
	unsigned times = 1;
	int start = *i, error = 0, more;

	if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
		return 0;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		o = find_long(table, a + 2, n);
		if (o && eq)
			value = eq + 1;
	} else {
		o = find_short(table, a[1]);
		if (o && a[2] && o->kind == OPT_COUNT)
			times = repeats(o, a);
		else if (o && a[2])
			value = a + 2;
	}
	/* an optional value only ever follows "=" */
	if (!o || !times || (!o->arg && value) ||
	    (o->optional && value && a[1] != '-') || (o->detached && value))
		return 0;
	/* the values still to come from the next arguments */
	more = !o->arg || o->optional ? 0 : !value;
	if (o->kind == OPT_PAIR)
		more++;
	if (*i + more >= argc) {
		/* named as spelled, without a value given */
		int n = value ? (int)(value - a - (a[1] == '-'))
			      : (int)strlen(a);
		return err_set(err, ERR_USAGE, "%.*s needs %s", n, a,
			       o->what ? o->what : o->arg);
	}
	if (!value && more) {
		value = argv[++*i];
		more--;
	}
	if (more)
		value2 = argv[++*i];
	while (times-- && !error)
		error = take(o, base, value, value2, err);
	if (error > 0)
		*i = start;
	return error ? (error > 0 ? 0 : error) : 1;
}

int opt_parse(const struct opt *table, void *base, int argc, char **argv,
	      const char ***args, size_t *nr_args, struct err *err)
{
	bool options = true;

	*args = xcalloc((size_t)argc + 1, sizeof(**args));
	*nr_args = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int taken;

		if (!options || a[0] != '-' || !a[1]) {
			(*args)[(*nr_args)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			options = false;
			continue;
		}
		if ((taken = opt_next(table, base, argc, argv, &i, err)) < 0)
			return taken;
		if (!taken)
			return err_set(err, ERR_USAGE, "unknown option '%s'",
				       a);
	}
	return 0;
}

void opt_help(struct buf *out, const struct opt *table)
{
	buf_adds(out, "options:\n");
	for (const struct opt *o = table; o->kind != OPT_END; o++) {
		size_t start = out->len;
		const char *h = o->help ? o->help : "";

		buf_adds(out, "  ");
		if (o->long_name)
			buf_addf(out, "--%s", o->long_name);
		if (o->long_name && o->optional)
			buf_addf(out, "[=%s]", o->arg);
		if (o->short_name)
			buf_addf(out, "%s-%c", o->long_name ? ", " : "",
				 o->short_name);
		if (o->arg && !o->optional)
			buf_addf(out, " %s", o->arg);
		/* the help one column on, or on the next lines */
		if (out->len - start < 24)
			buf_addf(out, "%*s", (int)(24 - (out->len - start)),
				 "");
		else
			buf_adds(out, "\n                        ");
		for (; *h; h++) {
			buf_addc(out, *h);
			if (*h == '\n' && h[1])
				buf_adds(out, "                        ");
		}
		buf_addc(out, '\n');
	}
}
