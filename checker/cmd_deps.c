/* cmd_deps: placeholder until its issue lands; refuses clearly rather than pretending. */
#include "cmd.h"

int cmd_deps(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error("'deps' is not implemented yet");
}
