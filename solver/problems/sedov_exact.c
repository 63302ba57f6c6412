// placeholder
typedef int blast_placeholder_sedov_t;
