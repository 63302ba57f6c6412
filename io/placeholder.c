void BlastIOPlaceholder(void);
void BlastIOPlaceholder(void) {}
