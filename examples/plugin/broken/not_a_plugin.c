/* Misbehaving on purpose: a shared library that is not a pecheck plugin. */
int not_a_plugin(void) { return 0; }
