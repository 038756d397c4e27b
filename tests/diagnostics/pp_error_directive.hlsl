#if __SHADER_TARGET_MAJOR < 7
#error "this kernel needs shader model 7"
#endif
[numthreads(64, 1, 1)]
void main() {}
