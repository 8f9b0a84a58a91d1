// SPDX-License-Identifier: GPL-2.0
/*
 * recheck.c - the immediate replay of a failure just found: the same
 * steps, in a fresh child process, must end in the same verdict (else the
 * scenario depends on something the reproducer does not control); and the
 * comparison of a replay's steps with recorded ones, which `race replay`
 * makes too.
 */
#include <stdlib.h>
#include <string.h>

#include "race/front/front.h"

/*
 * The steps of @steps as script tokens that force the same interleaving
 * (race_opt.tokens: its own array, not the schedule file's it replaces).
 */
static void tokens_from_steps(const struct race_step *steps, long n)
{
	static struct race_token *own;
	long i;

	free(own);
	own = calloc(n + 1, sizeof(*own));
	race_opt.tokens = own;
	race_opt.nr_tokens = n;
	for (i = 0; i < n; i++) {
		race_opt.tokens[i].thread = steps[i].thread;
		race_opt.tokens[i].mode = RACE_TOK_ONE;
		race_opt.tokens[i].line = i + 1;
		snprintf(race_opt.tokens[i].label, RACE_LABEL_LEN, "%s.%s",
			 steps[i].fn, steps[i].what);
	}
}

/**
 * race_steps_compare - compare the execution in race_sh with @lines
 *
 * Returns 0 if every recorded line recurs, -1 with @msg saying where not.
 */
int race_steps_compare(char **lines, long n, char *msg, size_t len)
{
	char got[256];
	long i;

	for (i = 0; i < n; i++) {
		if (!lines[i])
			continue;
		if (i >= race_sh->nr_steps) {
			snprintf(msg, len, "diverged at step %ld: recorded '%s', "
				 "but the replay ended after %ld steps", i + 1,
				 lines[i], race_sh->nr_steps);
			return -1;
		}
		race_step_line(&race_sh->steps[i], i + 1, got, sizeof(got));
		if (strcmp(got, lines[i])) {
			snprintf(msg, len, "diverged at step %ld: recorded '%s', "
				 "replayed '%s'", i + 1, lines[i], got);
			return -1;
		}
	}
	return 0;
}

/* "step ..." lines of the @n steps at @steps, allocated. */
static char **step_lines(const struct race_step *steps, long n)
{
	char **lines = calloc(n + 1, sizeof(char *)), buf[256];
	long i;

	for (i = 0; i < n; i++) {
		race_step_line(&steps[i], i + 1, buf, sizeof(buf));
		lines[i] = strdup(buf);
	}
	return lines;
}

/**
 * race_replay_check - replay the failure in race_sh once more, from its
 * own steps, and say whether it recurred
 *
 * race_sh and race_opt are the first search's again when it returns.
 */
void race_replay_check(void)
{
	long n = race_sh->nr_steps, i;
	struct race_step *copy = malloc((n + 1) * sizeof(*copy));
	char **lines = step_lines(race_sh->steps, n);
	char kind[32], msg[RACE_MSG_LEN];
	struct race_options saved = race_opt;
	struct race_shared head = *race_sh;

	memcpy(copy, race_sh->steps, n * sizeof(*copy));
	snprintf(kind, sizeof(kind), "%s", race_sh->kind);
	tokens_from_steps(copy, n);
	race_sees_from_steps(copy, n);
	race_opt.strategy = &race_script;
	race_opt.max_executions = 1;
	race_opt.os_threads = true;	/* the other carrier: a cross-check too */
	race_search();
	if (race_steps_compare(lines, n, msg, sizeof(msg)))
		printf("replay: NONDETERMINISTIC: %s\n", msg);
	else if (strcmp(kind, race_sh->kind))
		printf("replay: NONDETERMINISTIC: the same %ld steps ended in "
		       "'%s', not '%s'\n", n, race_sh->kind[0] ? race_sh->kind :
		       "no verdict", kind);
	else
		printf("replay: the same %ld steps and verdict, at once\n", n);
	/* the report above is the first run's: put its steps back */
	*race_sh = head;
	memcpy(race_sh->steps, copy, n * sizeof(*copy));
	race_opt = saved;
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(copy);
}
