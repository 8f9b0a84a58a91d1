/*
 * perfprobe - can this machine give rr what it needs?
 *
 * rr counts retired conditional branches in user space with a hardware
 * performance counter.  This program names the CPU (cpuid: vendor, family,
 * model, whether a hypervisor is present) and opens the counters rr opens:
 * the generic instruction counter, then the raw branch event of the
 * vendor.  It prints one line per question and exits 0; it is built
 * statically so that it runs on a machine with another C library.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Raw event codes of "retired conditional branches", as rr programs them. */
#define INTEL_RCB 0x5101c4	/* BR_INST_RETIRED.CONDITIONAL */
#define AMD_RCB	  0x5100d1	/* RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS */

static void cpu(char vendor[13], unsigned *family, unsigned *model, int *hv)
{
	unsigned a, b, c, d;

	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	__cpuid(1, a, b, c, d);
	*family = (a >> 8) & 0xf;
	*model = (a >> 4) & 0xf;
	if (*family == 0xf)
		*family += (a >> 20) & 0xff;
	if (*family == 0x6 || *family >= 0xf)
		*model |= ((a >> 16) & 0xf) << 4;
	*hv = !!(c & (1u << 31));
}

/* Open (and read once) a user-space counter; 0 or the errno. */
static int try_counter(uint32_t type, uint64_t config, long long *count)
{
	struct perf_event_attr attr;
	volatile int sink = 0;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	for (i = 0; i < 1000; i++)
		if (i % 3)
			sink++;
	if (read(fd, count, sizeof(*count)) != sizeof(*count))
		*count = -1;
	close(fd);
	return 0;
}

static void report(const char *what, uint32_t type, uint64_t config)
{
	long long n = 0;
	int err = try_counter(type, config, &n);

	if (err)
		printf("perf: %s: perf_event_open failed: %s\n", what, strerror(err));
	else
		printf("perf: %s: ok, counted %lld over a 1000-iteration loop\n", what, n);
}

int main(void)
{
	char vendor[13];
	unsigned family, model;
	int hv;

	cpu(vendor, &family, &model, &hv);
	printf("cpu: %s family 0x%x model 0x%x%s\n", vendor, family, model,
	       hv ? ", under a hypervisor" : ", no hypervisor bit");
	report("instructions (generic)", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	if (!strcmp(vendor, "AuthenticAMD"))
		report("retired conditional branches (AMD raw 0x5100d1)", PERF_TYPE_RAW, AMD_RCB);
	else
		report("retired conditional branches (Intel raw 0x5101c4)", PERF_TYPE_RAW, INTEL_RCB);
	return 0;
}
