/* stagebench: GPU simulation of biological systems, stage by stage, measured by one harness. */
#include "commands.h"

int main(int argc, char **argv)
{
    return sb_main(argc, argv);
}
