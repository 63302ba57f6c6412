// placeholder, replaced by the command-line module
#include "cli.h"
int BlastCliParse(MPI_Comm comm, int argc, char **argv, BlastConfig *cfg, BlastCliAction *action) {
  *action = BLAST_CLI_EXIT;
  return 0;
}
