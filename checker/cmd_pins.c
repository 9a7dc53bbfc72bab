/* cmd_pins: placeholder until its issue lands; refuses clearly rather than pretending. */
#include "cmd.h"

int cmd_pins(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_usage_error("'pins' is not implemented yet");
}
