/* cmd_inventory: placeholder until its issue lands; refuses clearly rather than pretending. */
#include "cmd.h"

int cmd_inventory(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error("'inventory' is not implemented yet");
}
