# make-build.py OPTION...: applies the options of run.sh (s16, b8, smem) to variants/rdme/kernels.cu
# of 6a5e0d1, in place, for a build to measure (then git checkout the file).
import sys
p='variants/rdme/kernels.cu'
s=open(p).read()
opts=sys.argv[1:]
def rep(a,b):
    global s
    assert s.count(a)==1,a
    s=s.replace(a,b)
if 's16' in opts:
    rep('#define REACT_SITES_PER_THREAD 8','#define REACT_SITES_PER_THREAD 16')
if 'b8' in opts:
    rep('''__global__ void __launch_bounds__(BLOCK, 6)
    react(''','''__global__ void __launch_bounds__(BLOCK, 8)
    react(''')
if 'smem' in opts:
    rep('''    __shared__ uint16_t active[BLOCK * REACT_SITES_PER_THREAD];
''','''    __shared__ uint16_t active[BLOCK * REACT_SITES_PER_THREAD];
    const bool KEEP = sizeof(typename F::site_t) == 4;
    __shared__ typename F::site_t words[KEEP ? BLOCK * REACT_SITES_PER_THREAD : 1];
''')
    rep('''        if (base + o < end && (all || F::occupied(v[k])))
            active[atomicAdd(&nactive, 1)] = (uint16_t)o;
''','''        if (base + o < end && (all || F::occupied(v[k]))) {
            int at = atomicAdd(&nactive, 1);
            active[at] = (uint16_t)o;
            if (KEEP)
                words[at] = v[k];
        }
''')
    rep('''        typename F::site_t w = lattice[i];
''','''        typename F::site_t w = KEEP ? words[j] : lattice[i];
''')
open(p,'w').write(s)
