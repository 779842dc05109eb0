"""Names a kernel may not give its values where the source becomes C or C++: the keywords and the
types the generated code declares (fixed-width integers, half precision); and, where the kernel
itself is a C function of its own name, the functions of the C library headers the source
includes (`C_LIBRARY`: a kernel named `fma` would redeclare <math.h>'s)."""

from __future__ import annotations

C_RESERVED = frozenset(
    """
alignas alignof and asm auto bool break case catch char class const constexpr continue default
delete do double else enum explicit extern false float for friend goto if inline int long mutable
namespace new noexcept not nullptr operator or private protected public register return short
signed sizeof static struct switch template this throw true try typedef typename union unsigned
using virtual void volatile while xor INFINITY NAN half bfloat16_t size_t int8_t int16_t int32_t
int64_t uint8_t uint16_t uint32_t uint64_t
""".split()
)

# Every function <math.h>, <string.h> and <stdlib.h> declare as g++ includes them in GNU mode,
# glibc's extensions too (`ffs`, `index`, `gamma`, `j0`, `rand`), as listed by
# `g++ -E -P -include compiler/runtime/cuda_shim/ntc_cuda_host.h -x c++ /dev/null` (its `extern`
# declarations; tests/backends/test_c_names.py checks the list against this machine's headers);
# with the C++ overloads and macros the shims use, and `main`.
_DECLARED = """
a64l abort abs acos acosf acosf128 acosf32 acosf32x acosf64 acosf64x acosh acoshf acoshf128
acoshf32 acoshf32x acoshf64 acoshf64x acoshl acosl aligned_alloc alloca arc4random arc4random_buf
arc4random_uniform asin asinf asinf128 asinf32 asinf32x asinf64 asinf64x asinh asinhf asinhf128
asinhf32 asinhf32x asinhf64 asinhf64x asinhl asinl at_quick_exit atan atan2 atan2f atan2f128
atan2f32 atan2f32x atan2f64 atan2f64x atan2l atanf atanf128 atanf32 atanf32x atanf64 atanf64x atanh
atanhf atanhf128 atanhf32 atanhf32x atanhf64 atanhf64x atanhl atanl atexit atof atoi atol atoll
basename bcmp bcopy bsearch bzero calloc canonicalize canonicalize_file_name canonicalizef
canonicalizef128 canonicalizef32 canonicalizef32x canonicalizef64 canonicalizef64x canonicalizel
cbrt cbrtf cbrtf128 cbrtf32 cbrtf32x cbrtf64 cbrtf64x cbrtl ceil ceilf ceilf128 ceilf32 ceilf32x
ceilf64 ceilf64x ceill clearenv copysign copysignf copysignf128 copysignf32 copysignf32x
copysignf64 copysignf64x copysignl cos cosf cosf128 cosf32 cosf32x cosf64 cosf64x cosh coshf
coshf128 coshf32 coshf32x coshf64 coshf64x coshl cosl daddl ddivl dfmal div dmull drand48 drand48_r
drem dremf dreml dsqrtl dsubl ecvt ecvt_r erand48 erand48_r erf erfc erfcf erfcf128 erfcf32
erfcf32x erfcf64 erfcf64x erfcl erff erff128 erff32 erff32x erff64 erff64x erfl exit exp exp10
exp10f exp10f128 exp10f32 exp10f32x exp10f64 exp10f64x exp10l exp2 exp2f exp2f128 exp2f32 exp2f32x
exp2f64 exp2f64x exp2l expf expf128 expf32 expf32x expf64 expf64x expl explicit_bzero expm1 expm1f
expm1f128 expm1f32 expm1f32x expm1f64 expm1f64x expm1l f32addf128 f32addf32x f32addf64 f32addf64x
f32divf128 f32divf32x f32divf64 f32divf64x f32fmaf128 f32fmaf32x f32fmaf64 f32fmaf64x f32mulf128
f32mulf32x f32mulf64 f32mulf64x f32sqrtf128 f32sqrtf32x f32sqrtf64 f32sqrtf64x f32subf128
f32subf32x f32subf64 f32subf64x f32xaddf128 f32xaddf64 f32xaddf64x f32xdivf128 f32xdivf64
f32xdivf64x f32xfmaf128 f32xfmaf64 f32xfmaf64x f32xmulf128 f32xmulf64 f32xmulf64x f32xsqrtf128
f32xsqrtf64 f32xsqrtf64x f32xsubf128 f32xsubf64 f32xsubf64x f64addf128 f64addf64x f64divf128
f64divf64x f64fmaf128 f64fmaf64x f64mulf128 f64mulf64x f64sqrtf128 f64sqrtf64x f64subf128
f64subf64x f64xaddf128 f64xdivf128 f64xfmaf128 f64xmulf128 f64xsqrtf128 f64xsubf128 fabs fabsf
fabsf128 fabsf32 fabsf32x fabsf64 fabsf64x fabsl fadd faddl fcvt fcvt_r fdim fdimf fdimf128 fdimf32
fdimf32x fdimf64 fdimf64x fdiml fdiv fdivl ffma ffmal ffs ffsl ffsll finite finitef finitel floor
floorf floorf128 floorf32 floorf32x floorf64 floorf64x floorl fma fmaf fmaf128 fmaf32 fmaf32x
fmaf64 fmaf64x fmal fmax fmaxf fmaxf128 fmaxf32 fmaxf32x fmaxf64 fmaxf64x fmaximum fmaximum_mag
fmaximum_mag_num fmaximum_mag_numf fmaximum_mag_numf128 fmaximum_mag_numf32 fmaximum_mag_numf32x
fmaximum_mag_numf64 fmaximum_mag_numf64x fmaximum_mag_numl fmaximum_magf fmaximum_magf128
fmaximum_magf32 fmaximum_magf32x fmaximum_magf64 fmaximum_magf64x fmaximum_magl fmaximum_num
fmaximum_numf fmaximum_numf128 fmaximum_numf32 fmaximum_numf32x fmaximum_numf64 fmaximum_numf64x
fmaximum_numl fmaximumf fmaximumf128 fmaximumf32 fmaximumf32x fmaximumf64 fmaximumf64x fmaximuml
fmaxl fmaxmag fmaxmagf fmaxmagf128 fmaxmagf32 fmaxmagf32x fmaxmagf64 fmaxmagf64x fmaxmagl fmin
fminf fminf128 fminf32 fminf32x fminf64 fminf64x fminimum fminimum_mag fminimum_mag_num
fminimum_mag_numf fminimum_mag_numf128 fminimum_mag_numf32 fminimum_mag_numf32x fminimum_mag_numf64
fminimum_mag_numf64x fminimum_mag_numl fminimum_magf fminimum_magf128 fminimum_magf32
fminimum_magf32x fminimum_magf64 fminimum_magf64x fminimum_magl fminimum_num fminimum_numf
fminimum_numf128 fminimum_numf32 fminimum_numf32x fminimum_numf64 fminimum_numf64x fminimum_numl
fminimumf fminimumf128 fminimumf32 fminimumf32x fminimumf64 fminimumf64x fminimuml fminl fminmag
fminmagf fminmagf128 fminmagf32 fminmagf32x fminmagf64 fminmagf64x fminmagl fmod fmodf fmodf128
fmodf32 fmodf32x fmodf64 fmodf64x fmodl fmul fmull free frexp frexpf frexpf128 frexpf32 frexpf32x
frexpf64 frexpf64x frexpl fromfp fromfpf fromfpf128 fromfpf32 fromfpf32x fromfpf64 fromfpf64x
fromfpl fromfpx fromfpxf fromfpxf128 fromfpxf32 fromfpxf32x fromfpxf64 fromfpxf64x fromfpxl fsqrt
fsqrtl fsub fsubl gamma gammaf gammal gcvt getenv getloadavg getpayload getpayloadf getpayloadf128
getpayloadf32 getpayloadf32x getpayloadf64 getpayloadf64x getpayloadl getpt getsubopt grantpt hypot
hypotf hypotf128 hypotf32 hypotf32x hypotf64 hypotf64x hypotl ilogb ilogbf ilogbf128 ilogbf32
ilogbf32x ilogbf64 ilogbf64x ilogbl index initstate initstate_r isinff isinfl isnanf isnanl j0 j0f
j0f128 j0f32 j0f32x j0f64 j0f64x j0l j1 j1f j1f128 j1f32 j1f32x j1f64 j1f64x j1l jn jnf jnf128
jnf32 jnf32x jnf64 jnf64x jnl jrand48 jrand48_r l64a labs lcong48 lcong48_r ldexp ldexpf ldexpf128
ldexpf32 ldexpf32x ldexpf64 ldexpf64x ldexpl ldiv lgamma lgamma_r lgammaf lgammaf128 lgammaf128_r
lgammaf32 lgammaf32_r lgammaf32x lgammaf32x_r lgammaf64 lgammaf64_r lgammaf64x lgammaf64x_r
lgammaf_r lgammal lgammal_r llabs lldiv llogb llogbf llogbf128 llogbf32 llogbf32x llogbf64
llogbf64x llogbl llrint llrintf llrintf128 llrintf32 llrintf32x llrintf64 llrintf64x llrintl
llround llroundf llroundf128 llroundf32 llroundf32x llroundf64 llroundf64x llroundl log log10
log10f log10f128 log10f32 log10f32x log10f64 log10f64x log10l log1p log1pf log1pf128 log1pf32
log1pf32x log1pf64 log1pf64x log1pl log2 log2f log2f128 log2f32 log2f32x log2f64 log2f64x log2l
logb logbf logbf128 logbf32 logbf32x logbf64 logbf64x logbl logf logf128 logf32 logf32x logf64
logf64x logl lrand48 lrand48_r lrint lrintf lrintf128 lrintf32 lrintf32x lrintf64 lrintf64x lrintl
lround lroundf lroundf128 lroundf32 lroundf32x lroundf64 lroundf64x lroundl malloc mblen mbstowcs
mbtowc memccpy memchr memcmp memcpy memfrob memmem memmove mempcpy memrchr memset mkdtemp mkostemp
mkostemp64 mkostemps mkostemps64 mkstemp mkstemp64 mkstemps mkstemps64 mktemp modf modff modff128
modff32 modff32x modff64 modff64x modfl mrand48 mrand48_r nan nanf nanf128 nanf32 nanf32x nanf64
nanf64x nanl nearbyint nearbyintf nearbyintf128 nearbyintf32 nearbyintf32x nearbyintf64
nearbyintf64x nearbyintl nextafter nextafterf nextafterf128 nextafterf32 nextafterf32x nextafterf64
nextafterf64x nextafterl nextdown nextdownf nextdownf128 nextdownf32 nextdownf32x nextdownf64
nextdownf64x nextdownl nexttoward nexttowardf nexttowardl nextup nextupf nextupf128 nextupf32
nextupf32x nextupf64 nextupf64x nextupl nrand48 nrand48_r on_exit posix_memalign posix_openpt pow
powf powf128 powf32 powf32x powf64 powf64x powl pselect ptsname ptsname_r putenv qecvt qecvt_r
qfcvt qfcvt_r qgcvt qsort qsort_r quick_exit rand rand_r random random_r rawmemchr realloc
reallocarray realpath remainder remainderf remainderf128 remainderf32 remainderf32x remainderf64
remainderf64x remainderl remquo remquof remquof128 remquof32 remquof32x remquof64 remquof64x
remquol rindex rint rintf rintf128 rintf32 rintf32x rintf64 rintf64x rintl round roundeven
roundevenf roundevenf128 roundevenf32 roundevenf32x roundevenf64 roundevenf64x roundevenl roundf
roundf128 roundf32 roundf32x roundf64 roundf64x roundl rpmatch scalb scalbf scalbl scalbln scalblnf
scalblnf128 scalblnf32 scalblnf32x scalblnf64 scalblnf64x scalblnl scalbn scalbnf scalbnf128
scalbnf32 scalbnf32x scalbnf64 scalbnf64x scalbnl secure_getenv seed48 seed48_r select setenv
setpayload setpayloadf setpayloadf128 setpayloadf32 setpayloadf32x setpayloadf64 setpayloadf64x
setpayloadl setpayloadsig setpayloadsigf setpayloadsigf128 setpayloadsigf32 setpayloadsigf32x
setpayloadsigf64 setpayloadsigf64x setpayloadsigl setstate setstate_r sigabbrev_np sigdescr_np
significand significandf significandl sin sincos sincosf sincosf128 sincosf32 sincosf32x sincosf64
sincosf64x sincosl sinf sinf128 sinf32 sinf32x sinf64 sinf64x sinh sinhf sinhf128 sinhf32 sinhf32x
sinhf64 sinhf64x sinhl sinl sqrt sqrtf sqrtf128 sqrtf32 sqrtf32x sqrtf64 sqrtf64x sqrtl srand
srand48 srand48_r srandom srandom_r stpcpy stpncpy strcasecmp strcasecmp_l strcasestr strcat strchr
strchrnul strcmp strcoll strcoll_l strcpy strcspn strdup strerror strerror_l strerror_r
strerrordesc_np strerrorname_np strfromd strfromf strfromf128 strfromf32 strfromf32x strfromf64
strfromf64x strfroml strfry strlen strncasecmp strncasecmp_l strncat strncmp strncpy strndup
strnlen strpbrk strrchr strsep strsignal strspn strstr strtod strtod_l strtof strtof128 strtof128_l
strtof32 strtof32_l strtof32x strtof32x_l strtof64 strtof64_l strtof64x strtof64x_l strtof_l strtok
strtok_r strtol strtol_l strtold strtold_l strtoll strtoll_l strtoq strtoul strtoul_l strtoull
strtoull_l strtouq strverscmp strxfrm strxfrm_l system tan tanf tanf128 tanf32 tanf32x tanf64
tanf64x tanh tanhf tanhf128 tanhf32 tanhf32x tanhf64 tanhf64x tanhl tanl tgamma tgammaf tgammaf128
tgammaf32 tgammaf32x tgammaf64 tgammaf64x tgammal totalorder totalorderf totalorderf128
totalorderf32 totalorderf32x totalorderf64 totalorderf64x totalorderl totalordermag totalordermagf
totalordermagf128 totalordermagf32 totalordermagf32x totalordermagf64 totalordermagf64x
totalordermagl trunc truncf truncf128 truncf32 truncf32x truncf64 truncf64x truncl ufromfp ufromfpf
ufromfpf128 ufromfpf32 ufromfpf32x ufromfpf64 ufromfpf64x ufromfpl ufromfpx ufromfpxf ufromfpxf128
ufromfpxf32 ufromfpxf32x ufromfpxf64 ufromfpxf64x ufromfpxl unlockpt unsetenv valloc wcstombs
wctomb y0 y0f y0f128 y0f32 y0f32x y0f64 y0f64x y0l y1 y1f y1f128 y1f32 y1f32x y1f64 y1f64x y1l yn
ynf ynf128 ynf32 ynf32x ynf64 ynf64x ynl
""".split()
C_LIBRARY = frozenset(
    _DECLARED
    + """
isnan isinf isfinite isnormal signbit fpclassify printf snprintf sprintf fprintf puts main rsqrt
""".split()
)
