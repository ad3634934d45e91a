// The function whose body the plugin cannot see in custom_jvp.c: a smooth
// "black box" (here just sin(x) * y + x^3 / 3, so the test can check it).
#include <math.h>
double blackbox(double x, double y) { return sin(x) * y + x * x * x / 3; }
float blackbox_f(float x) { return expf(x) * x; }
void log_message(const char *what, double value) { (void)what; (void)value; }
double lookup_scale(double x) { return x * x + 1; }
