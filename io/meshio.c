// placeholder, replaced by the module's implementation
typedef int blast_placeholder_meshio_t;
