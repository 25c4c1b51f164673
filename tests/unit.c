/*
 * unit.c: runs the C unit tests of the pure modules.  The binary links
 * without -llmdb and -lconfig: if I/O creeps into the core, it stops
 * building.  Ends with the "N passed, N failed" line make check reads.
 */
#include <stdio.h>

#include "unit.h"

int	unit_passed;
int	unit_failed;

int
main(void)
{
	test_policy();
	test_record();
	test_breaker();
	test_classify();
	test_token();
	test_redis_url();
	test_out();
	printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed == 0 && unit_passed > 0 ? 0 : 1;
}
