/*
 * mail: see mail.h.  The container readers (mbox, Maildir, files) are
 * strict about what cannot be mail (NUL bytes, over-long lines, garbage
 * where a header belongs, truncation) and name the file and line; inside a
 * well-formed message the parser is as lenient as real mailers require.
 */
#include "mail.h"

#include "cursor.h"
#include "fs.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REPLACEMENT_CHAR "\xEF\xBF\xBD"
#define MAX_MIME_DEPTH 16
#define NONE SIZE_MAX

/* ---- small helpers ---------------------------------------------------- */

static bool is_wsp(int c)
{
	return c == ' ' || c == '\t';
}

static struct span span_of(const char *p, size_t n)
{
	return (struct span){ p, n };
}

static bool span_blank(struct span s)
{
	for (size_t i = 0; i < s.len; i++)
		if (!isspace((unsigned char)s.ptr[i]))
			return false;
	return true;
}

static bool span_eq_ci(struct span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len == n && !strncasecmp(s.ptr, lit, n);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append s with every run of whitespace folded to one space, trimmed. */
void mail_add_folded(struct buf *out, const char *s, size_t n)
{
	bool space = false;
	size_t start = out->len;

	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i])) {
			space = true;
			continue;
		}
		if (space && out->len > start)
			buf_addc(out, ' ');
		space = false;
		buf_addc(out, s[i]);
	}
}

char *mail_folded_dup(const char *s, size_t n)
{
	struct buf b = BUF_INIT;

	mail_add_folded(&b, s, n);
	return buf_detach(&b, NULL);
}

/* A short printable excerpt of a line for error messages. */
static void add_excerpt(struct buf *out, struct span s)
{
	size_t n = s.len > 40 ? 40 : s.len;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s.ptr[i];
		buf_addc(out, c >= 32 && c < 127 ? (char)c : '?');
	}
	if (n < s.len)
		buf_adds(out, "...");
}

/* ---- UTF-8 and charsets ----------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

static bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* Copy UTF-8, turning invalid bytes and NUL into U+FFFD. */
static void add_utf8(struct buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	buf_grow(out, n);
	while (i < n) {
		size_t k = p[i] ? utf8_seq(p + i, n - i) : 0;
		if (k) {
			i += k;
			continue;
		}
		buf_add(out, s + run, i - run);
		buf_adds(out, REPLACEMENT_CHAR);
		run = ++i;
	}
	buf_add(out, s + run, n - run);
}

/* Charsets whose text we take as UTF-8 (ASCII is a subset). */
static bool charset_is_utf8(const char *cs)
{
	static const char *const names[] = {
		"utf-8", "utf8", "us-ascii", "ascii", "ansi_x3.4-1968",
		"unknown-8bit", "x-unknown", "default", "unknown",
	};

	if (!cs || !*cs)
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcasecmp(cs, names[i]))
			return true;
	return false;
}

/* The iconv name for a MIME charset: the usual supersets mailers mean. */
static const char *charset_iconv_name(const char *cs)
{
	static const struct {
		const char *mime, *iconv;
	} aliases[] = {
		{ "gb2312", "GB18030" },     { "gbk", "GB18030" },
		{ "x-gbk", "GB18030" },      { "euc-cn", "GB18030" },
		{ "cp936", "GB18030" },      { "iso-8859-1", "WINDOWS-1252" },
		{ "iso8859-1", "WINDOWS-1252" }, { "latin1", "WINDOWS-1252" },
		{ "ks_c_5601-1987", "CP949" }, { "x-sjis", "SHIFT_JIS" },
	};

	for (size_t i = 0; i < sizeof(aliases) / sizeof(*aliases); i++)
		if (!strcasecmp(cs, aliases[i].mime))
			return aliases[i].iconv;
	return cs;
}

/* iconv takes "//" suffixes and more; only plain names reach it. */
static bool charset_name_ok(const char *cs)
{
	size_t n = strlen(cs);

	if (!n || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)cs[i]) && !strchr("-_.:", cs[i]))
			return false;
	return true;
}

void mail_to_utf8(struct buf *out, const char *data, size_t len,
		  const char *charset)
{
	char *in = (char *)data;
	size_t inleft = len;
	char chunk[4096];
	char *o;
	size_t oleft;
	iconv_t cd;

	if (charset_is_utf8(charset) || !charset_name_ok(charset)) {
		add_utf8(out, data, len);
		return;
	}
	cd = iconv_open("UTF-8", charset_iconv_name(charset));
	if (cd == (iconv_t)-1) {
		add_utf8(out, data, len);
		return;
	}
	while (inleft) {
		size_t r;

		o = chunk;
		oleft = sizeof(chunk);
		r = iconv(cd, &in, &inleft, &o, &oleft);
		add_utf8(out, chunk, (size_t)(o - chunk));
		if (r != (size_t)-1 || errno == E2BIG)
			continue;
		/* EILSEQ, EINVAL: one bad byte, then go on */
		buf_adds(out, REPLACEMENT_CHAR);
		in++;
		inleft--;
		iconv(cd, NULL, NULL, NULL, NULL);
	}
	o = chunk;
	oleft = sizeof(chunk);
	iconv(cd, NULL, NULL, &o, &oleft);
	add_utf8(out, chunk, (size_t)(o - chunk));
	iconv_close(cd);
}

/* Raw 8-bit header text: UTF-8 when it is, else Windows-1252. */
static void add_header_bytes(struct buf *out, const char *s, size_t n)
{
	if (utf8_valid(s, n))
		add_utf8(out, s, n);
	else
		mail_to_utf8(out, s, n, "windows-1252");
}

/* ---- transfer encodings ----------------------------------------------- */

enum cte { CTE_8BIT, CTE_QP, CTE_BASE64 };

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static void decode_base64(struct buf *out, const char *s, size_t n)
{
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);
		if (s[i] == '=') {
			/* padding ends a quantum */
			acc = 0;
			bits = 0;
			continue;
		}
		if (v < 0)
			continue;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(out, (char)((acc >> bits) & 0xff));
			acc &= (1u << bits) - 1;
		}
	}
}

/* Quoted-printable; in headers (RFC 2047 Q) '_' stands for a space. */
static void decode_qp(struct buf *out, const char *s, size_t n, bool header)
{
	size_t i = 0;

	buf_grow(out, n);
	while (i < n) {
		size_t j;
		int hi, lo;

		if (header && s[i] == '_') {
			buf_addc(out, ' ');
			i++;
			continue;
		}
		if (s[i] != '=') {
			buf_addc(out, s[i++]);
			continue;
		}
		/* soft line break: "=", optional blanks, line end */
		j = i + 1;
		while (j < n && is_wsp(s[j]))
			j++;
		if (j < n && s[j] == '\r')
			j++;
		if (j >= n || s[j] == '\n') {
			i = j < n ? j + 1 : j;
			continue;
		}
		hi = i + 1 < n ? hexval((unsigned char)s[i + 1]) : -1;
		lo = i + 2 < n ? hexval((unsigned char)s[i + 2]) : -1;
		if (hi >= 0 && lo >= 0) {
			buf_addc(out, (char)(hi * 16 + lo));
			i += 3;
			continue;
		}
		buf_addc(out, s[i++]);
	}
}

static void decode_cte(struct buf *out, enum cte cte, struct span s)
{
	switch (cte) {
	case CTE_QP:
		decode_qp(out, s.ptr, s.len, false);
		break;
	case CTE_BASE64:
		decode_base64(out, s.ptr, s.len);
		break;
	default:
		buf_add(out, s.ptr, s.len);
		break;
	}
}

/* CRLF becomes LF only when every line of the part ends in CRLF. */
static void crlf_normalize(struct buf *b)
{
	size_t lf = 0, crlf = 0, o = 0;

	for (size_t i = 0; i < b->len; i++) {
		if (b->ptr[i] != '\n')
			continue;
		lf++;
		if (i && b->ptr[i - 1] == '\r')
			crlf++;
	}
	if (!lf || lf != crlf)
		return;
	for (size_t i = 0; i < b->len; i++) {
		if (b->ptr[i] == '\r' && i + 1 < b->len &&
		    b->ptr[i + 1] == '\n')
			continue;
		b->ptr[o++] = b->ptr[i];
	}
	buf_truncate(b, o);
}

/* NUL never reaches a caller that might take text for a C string. */
static void add_raw_text(struct buf *out, const char *s, size_t n)
{
	const char *nul;

	while ((nul = memchr(s, '\0', n))) {
		buf_add(out, s, (size_t)(nul - s));
		buf_adds(out, REPLACEMENT_CHAR);
		n -= (size_t)(nul - s) + 1;
		s = nul + 1;
	}
	buf_add(out, s, n);
}

static void ensure_final_lf(struct buf *b)
{
	if (b->len && b->ptr[b->len - 1] != '\n')
		buf_addc(b, '\n');
}

/* ---- RFC 2047 ----------------------------------------------------------- */

/*
 * An encoded word "=?charset?Q?text?=" at s: its length, or 0.  Blanks
 * inside the text are allowed (some mailers write them), line ends not.
 */
static size_t encoded_word(const char *s, size_t n, struct span *cs,
			   char *enc, struct span *text)
{
	size_t i = 2, t;

	if (n < 2 || s[0] != '=' || s[1] != '?')
		return 0;
	while (i < n && s[i] != '?' && !isspace((unsigned char)s[i]))
		i++;
	if (i == 2 || i >= n || s[i] != '?' || i - 2 > 64)
		return 0;
	*cs = span_of(s + 2, i - 2);
	i++;
	if (i + 1 >= n || s[i + 1] != '?')
		return 0;
	*enc = (char)toupper((unsigned char)s[i]);
	if (*enc != 'Q' && *enc != 'B')
		return 0;
	i += 2;
	t = i;
	while (i < n && s[i] != '?') {
		if (s[i] == '\n' || s[i] == '\r')
			return 0;
		i++;
	}
	if (i + 1 >= n || s[i + 1] != '=')
		return 0;
	*text = span_of(s + t, i - t);
	return i + 2;
}

static void flush_encoded(struct buf *out, struct buf *pend, const char *cs)
{
	if (pend->len)
		mail_to_utf8(out, pend->ptr, pend->len, cs);
	buf_reset(pend);
}

void mail_decode_header(struct buf *out, const char *value, size_t len)
{
	struct buf pend = BUF_INIT;
	char pend_cs[72] = "";
	size_t lit = 0, i = 0;
	bool after_word = false;

	while (i < len) {
		const char *q = memmem(value + i, len - i, "=?", 2);
		struct span cs, text;
		char enc, name[72];
		size_t at, wl, k;

		if (!q)
			break;
		at = (size_t)(q - value);
		wl = encoded_word(q, len - at, &cs, &enc, &text);
		if (!wl) {
			i = at + 2;
			continue;
		}
		/* blanks between encoded words are dropped (RFC 2047 6.2) */
		if (!after_word ||
		    !span_blank(span_of(value + lit, at - lit))) {
			flush_encoded(out, &pend, pend_cs);
			add_header_bytes(out, value + lit, at - lit);
		}
		for (k = 0; k < cs.len && cs.ptr[k] != '*'; k++)
			name[k] = cs.ptr[k];
		name[k] = '\0';
		if (strcasecmp(name, pend_cs)) {
			flush_encoded(out, &pend, pend_cs);
			memcpy(pend_cs, name, k + 1);
		}
		if (enc == 'B')
			decode_base64(&pend, text.ptr, text.len);
		else
			decode_qp(&pend, text.ptr, text.len, true);
		after_word = true;
		i = lit = at + wl;
	}
	flush_encoded(out, &pend, pend_cs);
	add_header_bytes(out, value + lit, len - lit);
	buf_release(&pend);
}

static bool plain_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 127 || ((unsigned char)*s < 32 &&
						 *s != '\t'))
			return false;
	return true;
}

static void encode_q_words(struct buf *out, const char *s, size_t n)
{
	static const char prefix[] = "=?UTF-8?q?";
	const unsigned char *p = (const unsigned char *)s;
	size_t room = 75 - (sizeof(prefix) - 1) - 2, used = 0, i = 0;

	buf_adds(out, prefix);
	while (i < n) {
		size_t k = utf8_seq(p + i, n - i), cost = 0;

		if (!k)
			k = 1;
		for (size_t j = 0; j < k; j++) {
			bool plain = isalnum(p[i + j]) ||
				     strchr("!*+-/ ", p[i + j]);
			cost += plain ? 1 : 3;
		}
		if (used && used + cost > room) {
			buf_adds(out, "?=\n ");
			buf_adds(out, prefix);
			used = 0;
		}
		for (size_t j = 0; j < k; j++) {
			unsigned char c = p[i + j];
			if (c == ' ')
				buf_addc(out, '_');
			else if (c && (isalnum(c) || strchr("!*+-/", c)))
				buf_addc(out, (char)c);
			else
				buf_addf(out, "=%02X", c);
		}
		used += cost;
		i += k;
	}
	buf_adds(out, "?=");
}

void mail_encode_header(struct buf *out, const char *value)
{
	size_t n = strlen(value), head = n;
	const char *lt;

	if (plain_ascii(value) && !strstr(value, "=?")) {
		buf_adds(out, value);
		return;
	}
	/* "Name <addr>": only the name gets encoded */
	lt = strrchr(value, '<');
	if (n && value[n - 1] == '>' && lt && plain_ascii(lt))
		head = (size_t)(lt - value);
	while (head && is_wsp(value[head - 1]))
		head--;
	if (head >= 2 && value[0] == '"' && value[head - 1] == '"')
		encode_q_words(out, value + 1, head - 2);
	else
		encode_q_words(out, value, head);
	if (head < n) {
		buf_addc(out, ' ');
		buf_adds(out, lt);
	}
}

/* ---- addresses and dates ---------------------------------------------- */

static char *clean_name(const char *s, size_t n)
{
	struct buf raw = BUF_INIT, dec = BUF_INIT;
	char *name;

	/* drop quotes, keep what backslashes escape */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n)
			buf_addc(&raw, s[++i]);
		else if (s[i] != '"')
			buf_addc(&raw, s[i]);
	}
	mail_decode_header(&dec, raw.ptr, raw.len);
	name = mail_folded_dup(dec.ptr, dec.len);
	buf_release(&raw);
	buf_release(&dec);
	if (!*name) {
		free(name);
		return NULL;
	}
	return name;
}

static char *trimmed_dup_or_null(const char *s, size_t n)
{
	struct span t = span_trim(span_of(s, n));
	return t.len ? span_dup(t) : NULL;
}

void mail_parse_address(const char *value, char **name, char **email)
{
	size_t n = strlen(value), lt = NONE, gt = NONE, lp = NONE, rp = NONE;
	size_t stop = n, i;
	bool quoted = false, angle = false;
	int paren = 0;

	*name = NULL;
	*email = NULL;
	for (i = 0; i < n; i++) {
		char c = value[i];
		if (quoted || paren) {
			if (c == '\\' && i + 1 < n)
				i++;
			else if (quoted && c == '"')
				quoted = false;
			else if (paren && c == '(')
				paren++;
			else if (paren && c == ')' && !--paren && rp == NONE)
				rp = i;
			continue;
		}
		if (angle) {
			if (c == '>') {
				angle = false;
				if (gt == NONE)
					gt = i;
			}
			continue;
		}
		if (c == '"') {
			quoted = true;
		} else if (c == '(') {
			paren = 1;
			if (lp == NONE)
				lp = i;
		} else if (c == '<') {
			angle = true;
			if (lt == NONE)
				lt = i;
		} else if (c == ',' && (gt != NONE || memchr(value, '@', i))) {
			/* a list: the first address is the one we want */
			stop = i;
			break;
		}
	}
	if (lt != NONE) {
		size_t e = gt != NONE && gt < stop ? gt : stop;
		*email = trimmed_dup_or_null(value + lt + 1, e - lt - 1);
		*name = clean_name(value, lt);
	} else if (lp != NONE) {
		size_t e = rp != NONE && rp < stop ? rp : stop;
		*email = trimmed_dup_or_null(value, lp);
		*name = clean_name(value + lp + 1, e - lp - 1);
	} else {
		*email = trimmed_dup_or_null(value, stop);
	}
}

static long long days_from_civil(long long y, unsigned m, unsigned d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int month_number(struct span t)
{
	static const char *const months[] = { "jan", "feb", "mar", "apr",
					      "may", "jun", "jul", "aug",
					      "sep", "oct", "nov", "dec" };

	if (t.len < 3)
		return 0;
	for (int i = 0; i < 12; i++)
		if (!strncasecmp(t.ptr, months[i], 3))
			return i + 1;
	return 0;
}

static bool zone_name(struct span t, int *tz)
{
	static const struct {
		const char *name;
		int minutes;
	} zones[] = {
		{ "UT", 0 },	    { "UTC", 0 },	{ "GMT", 0 },
		{ "Z", 0 },	    { "EST", -300 },	{ "EDT", -240 },
		{ "CST", -360 },    { "CDT", -300 },	{ "MST", -420 },
		{ "MDT", -360 },    { "PST", -480 },	{ "PDT", -420 },
	};

	for (size_t i = 0; i < sizeof(zones) / sizeof(*zones); i++)
		if (span_eq_ci(t, zones[i].name)) {
			*tz = zones[i].minutes;
			return true;
		}
	return false;
}

static bool all_digits(struct span t)
{
	if (!t.len)
		return false;
	for (size_t i = 0; i < t.len; i++)
		if (!isdigit((unsigned char)t.ptr[i]))
			return false;
	return true;
}

bool mail_parse_date(const char *value, long long *epoch, int *tz)
{
	long day = -1, year = -1, hh = -1, mm = -1, ss = 0;
	int mon = 0, zone = 0;
	bool have_zone = false;
	const char *p = value;

	while (*p) {
		struct span t;

		while (*p && (isspace((unsigned char)*p) || *p == ','))
			p++;
		if (!*p)
			break;
		if (*p == '(') {
			/* a comment such as "(CST)" */
			while (*p && *p != ')')
				p++;
			if (*p)
				p++;
			continue;
		}
		t.ptr = p;
		while (*p && !isspace((unsigned char)*p) && *p != ',' &&
		       *p != '(')
			p++;
		t.len = (size_t)(p - t.ptr);
		if (memchr(t.ptr, ':', t.len) && hh < 0) {
			char *e;
			hh = strtol(t.ptr, &e, 10);
			if (*e != ':')
				return false;
			mm = strtol(e + 1, &e, 10);
			if (*e == ':')
				ss = strtol(e + 1, &e, 10);
		} else if ((t.ptr[0] == '+' || t.ptr[0] == '-') && t.len == 5 &&
			   all_digits(span_of(t.ptr + 1, 4))) {
			int v = atoi(t.ptr + 1);
			zone = (v / 100) * 60 + v % 100;
			if (t.ptr[0] == '-')
				zone = -zone;
			have_zone = true;
		} else if (all_digits(t)) {
			if (t.len > 4)
				return false;
			if (day < 0 && t.len <= 2 && !mon)
				day = atol(t.ptr);
			else if (day < 0 && t.len <= 2 && year < 0 && mon &&
				 hh < 0)
				day = atol(t.ptr);
			else if (year < 0)
				year = atol(t.ptr);
		} else if (!mon && month_number(t)) {
			mon = month_number(t);
		} else if (!have_zone && zone_name(t, &zone)) {
			have_zone = true;
		}
	}
	if (!mon || day < 1 || day > 31 || year < 0 || hh < 0 || hh > 23 ||
	    mm < 0 || mm > 59 || ss < 0 || ss > 60)
		return false;
	if (year < 50)
		year += 2000;
	else if (year < 100)
		year += 1900;
	*epoch = days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 +
		 hh * 3600 + mm * 60 + ss - (long long)zone * 60;
	*tz = zone;
	return true;
}

/* ---- headers ------------------------------------------------------------ */

/* Where a message's lines are counted from, and how strict to be. */
struct pctx {
	const char *path;
	size_t base; /* line number of the message's first line */
	bool strict;
};

struct hdr {
	struct span name;
	struct buf raw; /* unfolded, not decoded */
};

struct hdrs {
	struct hdr *v;
	size_t nr, alloc;
};

static void hdrs_release(struct hdrs *h)
{
	for (size_t i = 0; i < h->nr; i++)
		buf_release(&h->v[i].raw);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static const char *hdrs_get(const struct hdrs *h, const char *name)
{
	for (size_t i = 0; i < h->nr; i++)
		if (span_eq_ci(h->v[i].name, name))
			return h->v[i].raw.ptr;
	return NULL;
}

/* "Name: value" (also the obsolete "Name : value"): the name's length. */
bool mail_header_line(struct span l, size_t *name_len, size_t *colon)
{
	size_t i = 0;

	while (i < l.len && l.ptr[i] != ':') {
		unsigned char c = (unsigned char)l.ptr[i];
		if (c <= 32 || c >= 127)
			break;
		i++;
	}
	*name_len = i;
	while (i < l.len && is_wsp(l.ptr[i]))
		i++;
	if (!*name_len || i >= l.len || l.ptr[i] != ':')
		return false;
	*colon = i;
	return true;
}

/*
 * Read a header block up to and including the blank line after it.
 * Strict: a line that is no header, or the end of input before the blank
 * line, is an error.  Lenient: such a line starts the body.
 */
static int read_headers(struct hdrs *h, struct cursor *c,
			const struct pctx *px, bool strict, struct err *err)
{
	struct span l;

	while (cursor_peek(c, &l)) {
		struct span t = span_chomp_cr(l);
		size_t name_len, colon;
		struct hdr *hd;

		if (!t.len) {
			cursor_next(c, &l, NULL);
			return 0;
		}
		if (is_wsp(t.ptr[0]) && h->nr) {
			buf_addspan(&h->v[h->nr - 1].raw, t);
			cursor_next(c, &l, NULL);
			continue;
		}
		if (!mail_header_line(t, &name_len, &colon)) {
			struct buf ex = BUF_INIT;
			int code;

			if (!strict)
				return 0;
			add_excerpt(&ex, t);
			code = err_set(err, ERR_PARSE,
				       "%s:%zu: malformed header line '%s'",
				       px->path, c->lineno, ex.ptr);
			err_hint(err, "a header line is 'Name: value'; a blank "
				      "line must separate the header from the "
				      "body");
			buf_release(&ex);
			return code;
		}
		ALLOC_GROW(h->v, h->nr + 1, h->alloc);
		hd = &h->v[h->nr++];
		hd->name = span_of(t.ptr, name_len);
		buf_init(&hd->raw, 0);
		colon++;
		while (colon < t.len && is_wsp(t.ptr[colon]))
			colon++;
		buf_add(&hd->raw, t.ptr + colon, t.len - colon);
		cursor_next(c, &l, NULL);
	}
	if (strict)
		return err_set(err, ERR_PARSE,
			       "%s:%zu: message ends inside its header "
			       "(truncated?)",
			       px->path, c->lineno > 1 ? c->lineno - 1 : 1);
	return 0;
}

/* The first "<...>" in s, or s itself when it is one bare word. */
static char *angle_id(const char *s)
{
	const char *lt = strchr(s, '<'), *gt;
	struct span t;

	if (lt && (gt = strchr(lt + 1, '>')) && gt > lt + 1)
		return xstrndup(lt + 1, (size_t)(gt - lt - 1));
	t = span_trim(span_from(s));
	if (!t.len || memchr(t.ptr, ' ', t.len) || memchr(t.ptr, '\t', t.len))
		return NULL;
	return span_dup(t);
}

static void fill_fields(struct mail *m, const struct hdrs *h)
{
	struct buf b = BUF_INIT;
	const char *v;

	m->headers = xcalloc(h->nr ? h->nr : 1, sizeof(*m->headers));
	for (size_t i = 0; i < h->nr; i++) {
		struct span t;

		buf_reset(&b);
		mail_decode_header(&b, h->v[i].raw.ptr, h->v[i].raw.len);
		t = span_trim(span_of(b.ptr, b.len));
		m->headers[i].name = span_dup(h->v[i].name);
		m->headers[i].value = span_dup(t);
	}
	m->nr_headers = h->nr;
	if ((v = hdrs_get(h, "From")))
		mail_parse_address(v, &m->from_name, &m->from_email);
	if ((v = hdrs_get(h, "Subject"))) {
		buf_reset(&b);
		mail_decode_header(&b, v, strlen(v));
		m->subject = mail_folded_dup(b.ptr, b.len);
	}
	if ((v = hdrs_get(h, "Date"))) {
		m->date = span_dup(span_trim(span_from(v)));
		mail_parse_date(m->date, &m->date_epoch, &m->date_tz);
	}
	if ((v = hdrs_get(h, "Message-ID")))
		m->message_id = angle_id(v);
	if ((v = hdrs_get(h, "In-Reply-To")))
		m->in_reply_to = angle_id(v);
	if ((v = hdrs_get(h, "References"))) {
		size_t alloc = 0;
		const char *lt;

		while ((lt = strchr(v, '<'))) {
			const char *gt = strchr(lt + 1, '>');
			if (!gt)
				break;
			if (gt > lt + 1) {
				ALLOC_GROW(m->references, m->nr_references + 1,
					   alloc);
				m->references[m->nr_references++] = xstrndup(
					lt + 1, (size_t)(gt - lt - 1));
			}
			v = gt + 1;
		}
	}
	buf_release(&b);
}

/* ---- MIME ------------------------------------------------------------- */

struct mime {
	char *type; /* lower-case "text/plain"; "" when absent */
	char *charset, *boundary, *name;
	bool flowed, delsp, attachment;
	enum cte cte;
};

/* Percent-decode an RFC 2231 value into out. */
static void add_pct_decoded(struct buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			buf_addc(out, (char)(hi * 16 + lo));
			i += 2;
		} else {
			buf_addc(out, s[i]);
		}
	}
}

/*
 * A parameter of a structured header ("text/plain; charset=utf-8"),
 * unquoted, with RFC 2231 "key*" and "key*0*" forms joined and decoded.
 */
static char *mime_param(const char *v, const char *key)
{
	struct buf ext = BUF_INIT, val = BUF_INIT, out = BUF_INIT;
	char ext_cs[48] = "";
	char *plain = NULL;
	bool have_ext = false;
	size_t klen = strlen(key);
	const char *p = strchr(v, ';');

	while (p && *p) {
		struct span name;

		p++;
		while (*p && isspace((unsigned char)*p))
			p++;
		name.ptr = p;
		while (*p && *p != '=' && *p != ';' &&
		       !isspace((unsigned char)*p))
			p++;
		name.len = (size_t)(p - name.ptr);
		while (*p && isspace((unsigned char)*p))
			p++;
		if (*p != '=') {
			p = strchr(p, ';');
			continue;
		}
		p++;
		while (*p && isspace((unsigned char)*p))
			p++;
		buf_reset(&val);
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				buf_addc(&val, *p);
			}
			if (*p)
				p++;
		} else {
			while (*p && *p != ';' && !isspace((unsigned char)*p))
				buf_addc(&val, *p++);
		}
		if (name.len == klen && !strncasecmp(name.ptr, key, klen)) {
			if (!plain)
				plain = xstrndup(val.ptr, val.len);
		} else if (name.len > klen &&
			   !strncasecmp(name.ptr, key, klen) &&
			   name.ptr[klen] == '*') {
			bool encoded = name.ptr[name.len - 1] == '*';
			const char *d = val.ptr;
			size_t dn = val.len;

			if (encoded && !have_ext) {
				/* charset'language'data */
				const char *q1, *q2 = NULL;

				q1 = memchr(d, '\'', dn);
				if (q1)
					q2 = memchr(q1 + 1, '\'',
						    dn - (size_t)(q1 + 1 - d));
				if (q2) {
					size_t cl = (size_t)(q1 - d);
					if (cl < sizeof(ext_cs)) {
						memcpy(ext_cs, d, cl);
						ext_cs[cl] = '\0';
					}
					dn -= (size_t)(q2 + 1 - d);
					d = q2 + 1;
				}
			}
			if (encoded)
				add_pct_decoded(&ext, d, dn);
			else
				buf_add(&ext, d, dn);
			have_ext = true;
		}
		p = strchr(p, ';');
	}
	buf_release(&val);
	if (!have_ext) {
		buf_release(&ext);
		return plain;
	}
	free(plain);
	mail_to_utf8(&out, ext.ptr, ext.len, ext_cs);
	buf_release(&ext);
	return buf_detach(&out, NULL);
}

static void mime_from_hdrs(struct mime *mi, const struct hdrs *h)
{
	const char *ct = hdrs_get(h, "Content-Type");
	const char *cte = hdrs_get(h, "Content-Transfer-Encoding");
	const char *cd = hdrs_get(h, "Content-Disposition");
	char *s;

	memset(mi, 0, sizeof(*mi));
	if (ct) {
		size_t n = strcspn(ct, ";");
		struct span t = span_trim(span_of(ct, n));
		mi->type = span_dup(t);
		for (char *q = mi->type; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		mi->charset = mime_param(ct, "charset");
		mi->boundary = mime_param(ct, "boundary");
		mi->name = mime_param(ct, "name");
		if ((s = mime_param(ct, "format"))) {
			mi->flowed = !strcasecmp(s, "flowed");
			free(s);
		}
		if ((s = mime_param(ct, "delsp"))) {
			mi->delsp = !strcasecmp(s, "yes");
			free(s);
		}
	} else {
		mi->type = xstrdup("");
	}
	if (cte) {
		struct span t = span_trim(span_from(cte));
		if (span_eq_ci(t, "quoted-printable"))
			mi->cte = CTE_QP;
		else if (span_eq_ci(t, "base64"))
			mi->cte = CTE_BASE64;
	}
	if (cd) {
		struct span t = span_trim(span_from(cd));
		mi->attachment = span_starts_with_ci(t, "attachment");
		if (!mi->name)
			mi->name = mime_param(cd, "filename");
	}
	if (mi->name) {
		struct buf b = BUF_INIT;
		mail_decode_header(&b, mi->name, strlen(mi->name));
		free(mi->name);
		mi->name = buf_detach(&b, NULL);
	}
}

static void mime_release(struct mime *mi)
{
	free(mi->type);
	free(mi->charset);
	free(mi->boundary);
	free(mi->name);
}

/* Whether a diff starts at the line at p. */
bool mail_diff_starts(const char *p, const char *end)
{
	struct cursor c;
	struct span a;

	cursor_init(&c, p, (size_t)(end - p));
	if (!cursor_next(&c, &a, NULL))
		return false;
	if (span_starts_with(a, "diff --git "))
		return true;
	if (!span_starts_with(a, "--- "))
		return false;
	if (!cursor_next(&c, &a, NULL) || !span_starts_with(a, "+++ "))
		return false;
	return cursor_next(&c, &a, NULL) && span_starts_with(a, "@@ ");
}

/*
 * Offset of the first unquoted diff in s ("diff --git ", or "--- " then
 * "+++ " then "@@ "); quoted lines start with '>' and never match.
 */
bool mail_find_diff(const char *s, size_t n, size_t *off)
{
	const char *p = s, *end = s + n;

	while (p < end) {
		const char *nl;

		if ((*p == 'd' || *p == '-') && mail_diff_starts(p, end)) {
			if (off)
				*off = (size_t)(p - s);
			return true;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/*
 * format=flowed (RFC 3676): join soft-broken lines and undo space
 * stuffing, up to the first diff (a diff in a flowed part is never
 * re-wrapped: its trailing blanks are real).
 */
static void unflow(struct buf *b, bool delsp)
{
	struct buf out = BUF_INIT, para = BUF_INIT;
	size_t stop = b->len;
	struct cursor c;
	struct span l;
	int depth = -1;

	mail_find_diff(b->ptr, b->len, &stop);
	cursor_init(&c, b->ptr, stop);
	while (cursor_next(&c, &l, NULL)) {
		int d = 0;
		bool soft;

		while (l.len && l.ptr[0] == '>') {
			d++;
			l.ptr++;
			l.len--;
		}
		if (l.len && l.ptr[0] == ' ') {
			l.ptr++;
			l.len--;
		}
		if (depth >= 0 && d != depth) {
			buf_addspan(&out, span_of(para.ptr, para.len));
			buf_addc(&out, '\n');
			depth = -1;
		}
		if (depth < 0) {
			buf_reset(&para);
			for (int i = 0; i < d; i++)
				buf_addc(&para, '>');
			if (d && l.len)
				buf_addc(&para, ' ');
			depth = d;
		}
		soft = l.len && l.ptr[l.len - 1] == ' ' && !span_eq(l, "-- ");
		buf_add(&para, l.ptr, soft && delsp ? l.len - 1 : l.len);
		if (!soft) {
			buf_addspan(&out, span_of(para.ptr, para.len));
			buf_addc(&out, '\n');
			depth = -1;
		}
	}
	if (depth >= 0) {
		buf_addspan(&out, span_of(para.ptr, para.len));
		buf_addc(&out, '\n');
	}
	buf_add(&out, b->ptr + stop, b->len - stop);
	buf_swap(&out, b);
	buf_release(&out);
	buf_release(&para);
}

struct walk {
	struct mail *m;
	const struct pctx *px;
	bool have_body;
	size_t alloc_att;
};

static bool skipped_type(const char *type)
{
	return !strcmp(type, "text/html") || starts_with(type, "image/") ||
	       starts_with(type, "audio/") || starts_with(type, "video/") ||
	       !strcmp(type, "application/pgp-signature") ||
	       !strcmp(type, "application/pkcs7-signature") ||
	       starts_with(type, "message/");
}

/*
 * A decoded text part: what comes before the first diff is converted to
 * UTF-8; the diff keeps its bytes, as git am keeps them, so that a line
 * of a Latin-1 file still applies.
 */
static void add_text(struct buf *out, const struct buf *raw, const char *cs)
{
	size_t off = raw->len;

	mail_find_diff(raw->ptr, raw->len, &off);
	mail_to_utf8(out, raw->ptr, off, cs);
	add_raw_text(out, raw->ptr + off, raw->len - off);
}

static void leaf_part(struct walk *w, const struct mime *mi, struct span body,
		      bool top)
{
	struct buf raw = BUF_INIT;
	struct mail *m = w->m;
	bool is_body;

	if (!top && skipped_type(mi->type))
		return;
	decode_cte(&raw, mi->cte, body);
	crlf_normalize(&raw);
	is_body = !w->have_body &&
		  (top || (!mi->attachment && !mi->name &&
			   (!*mi->type || !strcmp(mi->type, "text/plain"))));
	if (is_body) {
		add_text(&m->body, &raw, mi->charset);
		ensure_final_lf(&m->body);
		if (mi->flowed)
			unflow(&m->body, mi->delsp);
		w->have_body = true;
	} else if (!memchr(raw.ptr, '\0', raw.len) &&
		   mail_find_diff(raw.ptr, raw.len, NULL)) {
		struct buf *att;

		ALLOC_GROW(m->attachments, m->nr_attachments + 1, w->alloc_att);
		m->attachment_names =
			xrealloc(m->attachment_names,
				 w->alloc_att * sizeof(*m->attachment_names));
		att = &m->attachments[m->nr_attachments];
		buf_init(att, 0);
		add_text(att, &raw, mi->charset);
		ensure_final_lf(att);
		m->attachment_names[m->nr_attachments++] =
			mi->name ? xstrdup(mi->name) : NULL;
	}
	buf_release(&raw);
}

static int walk_entity(struct walk *w, const struct hdrs *h, struct span body,
		       size_t line, int depth, struct err *err);

static int walk_part(struct walk *w, struct span part, size_t line, int depth,
		     struct err *err)
{
	struct hdrs h = { 0 };
	struct cursor c;
	int error;

	cursor_init(&c, part.ptr, part.len);
	c.lineno = line;
	read_headers(&h, &c, w->px, false, err);
	error = walk_entity(w, &h, cursor_rest(&c), c.lineno, depth + 1, err);
	hdrs_release(&h);
	return error;
}

static int walk_multipart(struct walk *w, const char *boundary,
			  struct span body, size_t line, int depth,
			  struct err *err)
{
	size_t blen = strlen(boundary), part_line = 0;
	const char *part = NULL;
	struct cursor c;
	struct span l;
	int error;

	cursor_init(&c, body.ptr, body.len);
	c.lineno = line;
	while (cursor_next(&c, &l, NULL)) {
		struct span t = span_chomp_cr(l), tail;
		bool end;

		if (t.len < 2 + blen || t.ptr[0] != '-' || t.ptr[1] != '-' ||
		    memcmp(t.ptr + 2, boundary, blen))
			continue;
		tail = span_of(t.ptr + 2 + blen, t.len - 2 - blen);
		end = span_starts_with(tail, "--");
		if (end) {
			tail.ptr += 2;
			tail.len -= 2;
		}
		if (!span_blank(tail))
			continue;
		if (part) {
			/* the line break before a boundary belongs to it */
			const char *pe = l.ptr;
			if (pe > part && pe[-1] == '\n')
				pe--;
			if (pe > part && pe[-1] == '\r')
				pe--;
			error = walk_part(w, span_of(part, (size_t)(pe - part)),
					  part_line, depth, err);
			if (error < 0)
				return error;
		}
		if (end)
			return 0;
		part = c.pos;
		part_line = c.lineno;
	}
	if (!part) {
		/* no boundary at all: read it as one text part */
		struct mime mi = { .type = (char *)"" };
		leaf_part(w, &mi, body, false);
		return 0;
	}
	if (w->px->strict)
		return err_set(err, ERR_PARSE,
			       "%s:%zu: multipart message ends before its "
			       "closing boundary (truncated?)",
			       w->px->path, c.lineno > 1 ? c.lineno - 1 : 1);
	return walk_part(w, span_of(part, (size_t)(body.ptr + body.len - part)),
			 part_line, depth, err);
}

static int walk_entity(struct walk *w, const struct hdrs *h, struct span body,
		       size_t line, int depth, struct err *err)
{
	struct mime mi;
	int error = 0;

	mime_from_hdrs(&mi, h);
	if (starts_with(mi.type, "multipart/") && mi.boundary &&
	    *mi.boundary && depth < MAX_MIME_DEPTH)
		error = walk_multipart(w, mi.boundary, body, line, depth, err);
	else
		leaf_part(w, &mi, body, depth == 0);
	mime_release(&mi);
	return error;
}

/* ---- messages ------------------------------------------------------------ */

void mail_init(struct mail *m)
{
	memset(m, 0, sizeof(*m));
	buf_init(&m->body, 0);
}

void mail_release(struct mail *m)
{
	free(m->source);
	for (size_t i = 0; i < m->nr_headers; i++) {
		free(m->headers[i].name);
		free(m->headers[i].value);
	}
	free(m->headers);
	free(m->from_name);
	free(m->from_email);
	free(m->subject);
	free(m->date);
	free(m->message_id);
	free(m->in_reply_to);
	for (size_t i = 0; i < m->nr_references; i++)
		free(m->references[i]);
	free(m->references);
	free(m->commit_id);
	buf_release(&m->body);
	for (size_t i = 0; i < m->nr_attachments; i++) {
		buf_release(&m->attachments[i]);
		free(m->attachment_names[i]);
	}
	free(m->attachments);
	free(m->attachment_names);
	mail_init(m);
}

const char *mail_header(const struct mail *m, const char *name)
{
	for (size_t i = 0; i < m->nr_headers; i++)
		if (!strcasecmp(m->headers[i].name, name))
			return m->headers[i].value;
	return NULL;
}

/* NUL bytes and over-long lines: "path:line: ..." */
static int check_bytes(const char *data, size_t len, const char *path,
		       size_t base, struct err *err)
{
	const char *p = data, *end = data + len;
	const char *nul = memchr(data, '\0', len);
	size_t lineno = base;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > MAIL_MAX_LINE)
			return err_set(err, ERR_PARSE,
				       "%s:%zu: line is longer than %d bytes",
				       path, lineno, MAIL_MAX_LINE);
		if (nul && nul < le) {
			err_set(err, ERR_PARSE, "%s:%zu: NUL byte in message",
				path, lineno);
			err_hint(err, "mail is text; is this a binary file?");
			return err->code;
		}
		if (!nl)
			break;
		p = nl + 1;
		lineno++;
	}
	return 0;
}

static int parse_message(struct mail *m, const char *data, size_t len,
			 const struct pctx *px, struct err *err)
{
	struct hdrs h = { 0 };
	struct walk w = { m, px, false, 0 };
	struct cursor c;
	int error;

	m->source = xstrfmt("%s:%zu", px->path, px->base);
	m->lineno = px->base;
	cursor_init(&c, data, len);
	c.lineno = px->base;
	if ((error = read_headers(&h, &c, px, px->strict, err)) < 0)
		goto out;
	fill_fields(m, &h);
	error = walk_entity(&w, &h, cursor_rest(&c), c.lineno, 0, err);
out:
	hdrs_release(&h);
	return error;
}

/* "From <40 hex> ...": git format-patch's first line. */
bool mail_commit_line(struct span l, char sha[41])
{
	l = span_chomp_cr(l);
	if (l.len < 45 || !span_starts_with(l, "From "))
		return false;
	for (size_t i = 5; i < 45; i++)
		if (!isxdigit((unsigned char)l.ptr[i]))
			return false;
	if (l.len > 45 && l.ptr[45] != ' ')
		return false;
	for (size_t i = 0; i < 40; i++)
		sha[i] = (char)tolower((unsigned char)l.ptr[5 + i]);
	sha[40] = '\0';
	return true;
}

/*
 * An mbox "From " separator: "From sender date" where the date has a time
 * and a year.  Prose that happens to start with "From " has neither.
 */
static bool is_from_line(struct span l)
{
	const char *p, *e;
	bool have_time = false, have_year = false;

	l = span_chomp_cr(l);
	if (l.len < 10 || !span_starts_with(l, "From ") ||
	    isspace((unsigned char)l.ptr[5]))
		return false;
	p = l.ptr + 5;
	e = l.ptr + l.len;
	for (const char *q = p; q < e; q++) {
		if (*q == ':' && q > p && isdigit((unsigned char)q[-1]) &&
		    q + 2 < e && isdigit((unsigned char)q[1]) &&
		    isdigit((unsigned char)q[2]))
			have_time = true;
		if (isdigit((unsigned char)*q) &&
		    (q == p || !isdigit((unsigned char)q[-1]))) {
			const char *r = q;
			while (r < e && isdigit((unsigned char)*r))
				r++;
			if (r - q == 4 &&
			    (r == e || isspace((unsigned char)*r)))
				have_year = true;
		}
	}
	return have_time && have_year;
}

/*
 * The first line of a file needs no date to be a separator: a header line
 * never starts with "From " (Thunderbird writes "From - Tue Jan ...").
 */
static bool is_first_from_line(struct span l)
{
	return l.len > 5 && span_starts_with(l, "From ") &&
	       !isspace((unsigned char)l.ptr[5]);
}

int mail_parse(struct mail *m, const char *data, size_t len,
	       const char *source, struct err *err)
{
	struct pctx px = { source, 1, false };
	struct cursor c;
	struct span l;
	char sha[41];
	bool has_sha = false;
	int error;

	if ((error = check_bytes(data, len, source, 1, err)) < 0)
		return error;
	cursor_init(&c, data, len);
	if (cursor_peek(&c, &l) && is_first_from_line(l)) {
		has_sha = mail_commit_line(l, sha);
		cursor_next(&c, &l, NULL);
		px.base = 2;
	}
	l = cursor_rest(&c);
	if ((error = parse_message(m, l.ptr, l.len, &px, err)) < 0)
		return error;
	free(m->source);
	m->source = xstrdup(source);
	if (has_sha)
		m->commit_id = xstrdup(sha);
	return 0;
}

/* ---- containers ---------------------------------------------------------- */

void mail_list_release(struct mail_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		mail_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static struct mail *list_push(struct mail_list *l)
{
	ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	mail_init(&l->items[l->nr]);
	return &l->items[l->nr];
}

/* mboxrd and mboxo alike: ">From " -> "From ", ">>From " -> ">From ". */
static bool quoted_from(struct span full)
{
	size_t i = 0;

	while (i < full.len && full.ptr[i] == '>')
		i++;
	return i && full.len - i >= 5 && !memcmp(full.ptr + i, "From ", 5);
}

static int read_mbox(struct mail_list *l, const char *data, size_t len,
		     const char *path, struct err *err)
{
	struct buf msg = BUF_INIT;
	struct cursor c;
	struct span line, full;
	int error = 0;

	cursor_init(&c, data, len);
	while (cursor_peek(&c, &line) && span_blank(line))
		cursor_next(&c, &line, NULL);
	if (!cursor_peek(&c, &line))
		return err_set(err, ERR_PARSE, "'%s' holds no message", path);
	if (!is_first_from_line(line))
		return err_set(err, ERR_PARSE,
			       "%s:%zu: not an mbox: no 'From ' line", path,
			       c.lineno);
	while (cursor_next(&c, &line, NULL)) {
		struct pctx px = { path, c.lineno, true };
		size_t sep = c.lineno - 1;
		char sha[41];
		bool has_sha = mail_commit_line(line, sha);
		struct mail *m;

		buf_reset(&msg);
		while (cursor_peek(&c, &line) && !is_from_line(line)) {
			cursor_next(&c, &line, &full);
			if (quoted_from(full))
				buf_add(&msg, full.ptr + 1, full.len - 1);
			else
				buf_addspan(&msg, full);
		}
		/* the empty line that separates messages is not theirs */
		if (msg.len >= 4 && ends_with(msg.ptr, "\r\n\r\n"))
			buf_truncate(&msg, msg.len - 2);
		else if (msg.len >= 2 && ends_with(msg.ptr, "\n\n"))
			buf_truncate(&msg, msg.len - 1);
		if (span_blank(span_of(msg.ptr, msg.len))) {
			error = err_set(err, ERR_PARSE,
					"%s:%zu: empty message after the "
					"'From ' line (truncated?)",
					path, sep);
			break;
		}
		m = list_push(l);
		error = parse_message(m, msg.ptr, msg.len, &px, err);
		if (error < 0) {
			mail_release(m);
			break;
		}
		if (has_sha)
			m->commit_id = xstrdup(sha);
		l->nr++;
	}
	buf_release(&msg);
	return error;
}

bool mail_is_mbox(const char *data, size_t len)
{
	struct cursor c;
	struct span line;
	char sha[41];

	cursor_init(&c, data, len);
	while (cursor_peek(&c, &line) && span_blank(line))
		cursor_next(&c, &line, NULL);
	return cursor_peek(&c, &line) &&
	       (is_from_line(line) || mail_commit_line(line, sha));
}

int mail_read_mbox(struct mail_list *l, const char *data, size_t len,
		   const char *source, struct err *err)
{
	int error = check_bytes(data, len, source, 1, err);
	return error < 0 ? error : read_mbox(l, data, len, source, err);
}

/*
 * One file: an mbox (or format-patch output) when its first line is a
 * "From " line, else a single message.  In a plain directory, files that
 * do not start like mail (a quilt "series", a README) are skipped.
 */
static int read_file(struct mail_list *l, const char *path, bool skip_other,
		     struct err *err)
{
	struct buf data = BUF_INIT;
	struct cursor c;
	struct span line;
	size_t name_len, colon;
	int error;

	if ((error = fs_read_file(&data, path, MAIL_MAX_SIZE, err)) < 0)
		goto out;
	if ((error = check_bytes(data.ptr, data.len, path, 1, err)) < 0)
		goto out;
	cursor_init(&c, data.ptr, data.len);
	while (cursor_peek(&c, &line) && span_blank(line))
		cursor_next(&c, &line, NULL);
	if (!cursor_peek(&c, &line)) {
		if (!skip_other)
			error = err_set(err, ERR_PARSE,
					"'%s' is empty: no message in it",
					path);
		goto out;
	}
	if (is_first_from_line(line)) {
		error = read_mbox(l, data.ptr, data.len, path, err);
	} else if (skip_other &&
		   !mail_header_line(span_chomp_cr(line), &name_len, &colon)) {
		error = 0;
	} else {
		struct pctx px = { path, c.lineno, true };
		struct span rest = cursor_rest(&c);
		struct mail *m = list_push(l);

		error = parse_message(m, rest.ptr, rest.len, &px, err);
		if (error < 0)
			mail_release(m);
		else
			l->nr++;
	}
out:
	buf_release(&data);
	return error;
}

struct dirent_path {
	char *path;
	const char *base;
};

static int cmp_dirent_path(const void *a, const void *b)
{
	const struct dirent_path *x = a, *y = b;
	return strcmp(x->base, y->base);
}

static int read_dir(struct mail_list *l, const char *path, struct err *err)
{
	static const char *const maildir_subdirs[] = { "cur", "new" };
	struct dirent_path *files = NULL;
	size_t nr = 0, alloc = 0, before = l->nr;
	bool maildir = false;
	int error = 0;

	for (size_t i = 0; i < 2; i++) {
		char *sub = fs_join(path, maildir_subdirs[i]);
		maildir |= fs_is_dir(sub);
		free(sub);
	}
	for (size_t i = 0; i < (maildir ? 2 : 1) && !error; i++) {
		char *dir = maildir ? fs_join(path, maildir_subdirs[i]) :
				      xstrdup(path);
		char **names;
		size_t n;

		if (!fs_is_dir(dir)) {
			free(dir);
			continue;
		}
		if ((error = fs_list_dir(dir, &names, &n, err)) < 0) {
			free(dir);
			break;
		}
		for (size_t j = 0; j < n; j++) {
			char *f = fs_join(dir, names[j]);
			if (names[j][0] == '.' || !fs_is_file(f)) {
				free(f);
				continue;
			}
			ALLOC_GROW(files, nr + 1, alloc);
			files[nr].path = f;
			files[nr].base = strrchr(f, '/') + 1;
			nr++;
		}
		fs_free_list(names, n);
		free(dir);
	}
	/* Maildir names start with the delivery time: sort across both */
	if (nr)
		qsort(files, nr, sizeof(*files), cmp_dirent_path);
	for (size_t i = 0; i < nr && !error; i++)
		error = read_file(l, files[i].path, !maildir, err);
	for (size_t i = 0; i < nr; i++)
		free(files[i].path);
	free(files);
	if (!error && l->nr == before)
		error = err_set(err, ERR_PARSE, "'%s' holds no message", path);
	return error;
}

int mail_read_path(struct mail_list *l, const char *path, struct err *err)
{
	if (fs_is_dir(path))
		return read_dir(l, path, err);
	return read_file(l, path, false, err);
}
