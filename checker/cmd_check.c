/* cmd_check: placeholder until its issue lands; refuses clearly rather than pretending. */
#include "cmd.h"

int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error("'check' is not implemented yet");
}
