#warning "this shader is slow"
#pragma multi_compile _ FAST
#pragma warning(disable: 3557)
#define GROUP 32
#define GROUP 64
#ifdef GROUP extra
#endif
[numthreads(GROUP, 1, 1)]
void main() {}
