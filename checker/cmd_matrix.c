/* cmd_matrix: placeholder until its issue lands; refuses clearly rather than pretending. */
#include "cmd.h"

int cmd_matrix(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error("'matrix' is not implemented yet");
}
