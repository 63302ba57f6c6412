void BlastPartitionPlaceholder(void);
void BlastPartitionPlaceholder(void) {}
