/* cmd_pe: placeholder until its issue lands; refuses clearly rather than pretending. */
#include "cmd.h"

int cmd_pe(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error("'pe' is not implemented yet");
}
