// A valid shared library that is not a ray plugin: no ray headers, no entry points.
extern "C" int not_a_plugin_answer() { return 42; }
