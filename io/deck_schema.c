// placeholder, replaced by the module's implementation
typedef int blast_placeholder_deck_schema_t;
