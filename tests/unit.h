/* SPDX-License-Identifier: ISC */
/*
 * unit.h: the smallest test harness that reports well.  CHECK records a
 * failure with file and line and carries on; each unit-*.c exports one
 * void test_MODULE(void) that unit.c calls.
 */
#ifndef CBEXEC_UNIT_H
#define CBEXEC_UNIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct cb_err;
struct cb_policy;
struct cb_record;

#define T0		1700000000000LL		/* a wall clock, ms */
#define SEC		1000LL
#define MIN		(60 * SEC)
#define HOUR		(60 * MIN)
/* Cron's drift admitted early as the probe (SPEC 2): min(2s, cool-down / 10). */
#define DRIFT(c)	((c) / 10 < 2 * SEC ? (c) / 10 : 2 * SEC)
#define DAY		(24 * HOUR)

extern int	unit_passed;
extern int	unit_failed;

#define CHECK(cond) do {						\
	if (cond)							\
		unit_passed++;						\
	else {								\
		unit_failed++;						\
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n",		\
		    __FILE__, __LINE__, #cond);				\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	if (a_ == b_)							\
		unit_passed++;						\
	else {								\
		unit_failed++;						\
		fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", \
		    __FILE__, __LINE__, #a, a_, #b, b_);		\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *a_ = (a), *b_ = (b);				\
	if (strcmp(a_, b_) == 0)					\
		unit_passed++;						\
	else {								\
		unit_failed++;						\
		fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", \
		    __FILE__, __LINE__, #a, a_, b_);			\
	}								\
} while (0)

/* The built-in defaults of SPEC section 3, field by field (unit.c), so
 * the core's tests do not depend on policy.c's builder. */
void	unit_policy_defaults(struct cb_policy *);

/* record_decode a copy of exactly len bytes, so ASan sees any overread,
 * into r first filled with garbage (unit-record.c). */
int	unit_decode_copy(const uint8_t *, size_t, struct cb_record *,
	    struct cb_err *);

/* The version 3 golden record as a struct (unit-record.c), and whether
 * two records hold the same bytes where record_decode defines them. */
void	unit_golden_record(struct cb_record *);
int	unit_record_same(const struct cb_record *, const struct cb_record *);

void	test_policy(void);
void	test_record(void);
void	test_record4(void);
void	test_record5(void);
void	test_rate(void);
void	test_jobmark_all(void);

/* unit-record4.c's golden version 4 record, its bytes and what it holds,
 * which version 5 extends (unit-record5.c). */
extern const uint8_t	golden4[];
extern const size_t	golden4_len;
void	golden4_record(struct cb_record *);
void	test_breaker(void);
void	test_classify(void);
void	test_token(void);
void	test_redis_url(void);
void	test_out(void);

#endif
