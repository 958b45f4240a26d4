/*
 * adapt_conv: rule 5 of adaptation, the series' own conversion.  The
 * rules resolve --suggest learns from the calls the series converts
 * (audit.c: a callee renamed, an argument dropped or added) are applied
 * to a conflicting hunk whose every change is such a conversion: the
 * calls its function has in the target are converted as they stand
 * there, the rest of the hunk (its context) is taken from the target.
 * The result is a proposal like the other rules' (adapt.h): never clean.
 * Text only, but for learning, which reads the series' settings.
 */
#ifndef KCARRY_ADAPT_CONV_H
#define KCARRY_ADAPT_CONV_H

#include "adapt.h"
#include "series.h"

struct audit_rule;

/* What a series converts: the rules, one per symbol. */
struct adapt_conv {
	struct audit_rule *rules;
	size_t nr;
};

/*
 * Learn what series v converts (watch.file of series/NAME.conf under
 * root, or the default watched files).  A series whose hunks show no
 * conversion learns none; errors are returned, c is then empty.
 */
int adapt_conv_learn(struct adapt_conv *c, const char *root,
		     const struct series_version *v, struct err *err);
void adapt_conv_release(struct adapt_conv *c);

/*
 * Rule 5: *out gets the hunk rewritten (new, adaptation_free) when each
 * block of lines it changes is calls converted by conv's rules and
 * nothing else, and its function in the target (the one it names, or
 * the one its context shows) holds exactly as many calls of each of those
 * symbols, each of the arity the rule was learned from; NULL otherwise.
 */
void adapt_series_conversion(struct adaptation **out, const struct adapt_in *in,
			     const struct adapt_conv *conv);

#endif
