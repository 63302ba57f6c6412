"""Expected values of the verification runs, transcribed from the method spec.

Every number here is copied from ../shared/docs/method.md (section named in the comment)
or derived from such numbers by hand; none is produced by blast_gpu. Keep the spec's
spelling of each number (as a string where the printed digits matter).
"""

# Section 15.1 (published table, reference -pa on 8 ranks), 15.3 ("rej." = repeated
# steps, "Energy diff" = |E(0) - E(t_final)| printed %.2e) and 15.4 (debugging anchors,
# reference -pa on one process). Keys:
#   deck          inputs/<deck>.ini                          (README: run N <-> deck)
#   step, dt, e   15.1: accepted steps, dt printed %.6f, |e| printed %.10e
#   rej, ediff    15.3
#   ediff_roundoff  15.3's value is round-off (RK2Avg, run 8): its digits are not
#                 reproducible; the run is checked against the conservation bound instead
#   dt0, e0, E0   15.4 initial quantities: dt_0, |e|(0), E(0) = IE + KE
#   first         15.4: outcome of the very first attempt ("accept" / "reject"), None if
#                 the spec does not say
#   rej_before    15.4: rejected attempts before accepted step 1 (and none after it up to
#                 the last anchored step, as the anchors read)
#   anchors       15.4: {accepted step n: |e|_n} (16 digits)
#   dt_used1      15.4: the dt with which step 1 was accepted (= t after step 1)
#   grow1         15.4: whether dt grew by 1.02 after step 1 (True/False), None if not said
#   e16           15.3/14.2: 16-digit final |e| of reference variants, for the record
RUNS = {
    1: dict(deck="taylor_green2d", step=339, dt="0.000702", e="4.9695537349e+01",
            rej=15, ediff="1.97e-07",
            dt0=9.86994246751632387e-03, e0=4.9514495599240810e+01, E0=1.7499984542119047e+00,
            first="reject", rej_before=1, anchors={1: 4.9514478295631001e+01},
            dt_used1=8.38945109738888e-3, grow1=False),
    2: dict(deck="taylor_green3d", step=1041, dt="0.000121", e="3.3909635545e+03",
            rej=17, ediff="2.88e-09",
            dt0=4.83398301437878552e-03, e0=3.3898742184866442e+03, E0=1.4993721050749255e+02,
            first=None, rej_before=None, anchors={}, dt_used1=None, grow1=None),
    3: dict(deck="sedov2d", step=1154, dt="0.001655", e="4.6303396053e+01",
            rej=15, ediff="3.61e-05",
            dt0=6.23268710576209265e-04, e0=2.5599999999999997e+02, E0=2.4999999999999994e-01,
            first="accept", rej_before=0,
            anchors={1: 2.5351076350994984e+02, 2: 2.4734180781693485e+02,
                     3: 2.3974422385271075e+02},
            dt_used1=6.23268710576209e-4, grow1=True, dt_after1=6.35734084787733e-4),
    4: dict(deck="sedov3d", step=560, dt="0.002449", e="1.3408616722e+02",
            rej=7, ediff="6.90e-06",
            dt0=6.46102217386087282e-04, e0=1.0239999999999997e+03, E0=2.4999999999999964e-01,
            first="accept", rej_before=0,
            anchors={1: 1.0110184212830568e+03, 2: 9.7859724373627262e+02},
            dt_used1=6.46102217386087e-4, grow1=True),
    5: dict(deck="sod1d", step=413, dt="0.000470", e="3.2012077410e+01",
            rej=7, ediff="2.78e-06",
            dt0=1.46728169223694330e-03, e0=2.8284271247461902e+01, E0=1.3749999999999993e+00,
            first="reject", rej_before=4, anchors={1: 2.8285055344064819e+01},
            # accepted with dt_est 7.72829e-4 < 1.25 dt: no growth
            dt_used1=7.65930213858261e-4, grow1=False),
    6: dict(deck="triple_point2d", step=2872, dt="0.000064", e="5.6547039096e+01",
            rej=25, ediff="9.33e-05",
            dt0=2.26804605813249356e-02, e0=4.7734264422948520e+01, E0=1.0050000000000576e+01,
            first="reject", rej_before=4, anchors={1: 4.7731559989891700e+01},
            dt_used1=1.18393421763302e-2, grow1=None,
            e16={"reference -pa, 1 rank (15.3)": 5.6547039096066804e+01,
                 "assembled, V1+E1 (14.2)": 5.6547039096170970e+01,
                 "assembled, V1+E2 (15.3)": 5.6547039096006067e+01}),
    7: dict(deck="triple_point3d", step=858, dt="0.000474", e="5.6691500623e+01",
            rej=18, ediff="2.59e-04",
            dt0=3.43197027203048927e-02, e0=4.7991665943161237e+01, E0=3.0149999999997881e+01,
            first="reject", rej_before=4, anchors={1: 4.7984565974425905e+01},
            # "first 1.02 growth at step 5"
            dt_used1=1.79150993181412e-2, grow1=False,
            e16={"assembled, V1+E2 (15.3)": 5.6691500623064350e+01}),
    8: dict(deck="gresho2d", step=776, dt="0.000045", e="4.0982431726e+02",
            rej=12, ediff="2.2e-13", ediff_roundoff=True,
            dt0=3.35828026904852689e-03, e0=4.0980563174595488e+02, E0=8.6170228778934348e+00,
            first="reject", rej_before=1,
            anchors={1: 4.0980582008545406e+02, 2: 4.0980582754200628e+02},
            dt_used1=2.85453822869125e-3, grow1=None),
    9: dict(deck="rayleigh_taylor2d", step=2462, dt="0.000050", e="1.1792848680e+02",
            rej=49, ediff="2.93e-02",
            dt0=4.06739380553801291e-03, e0=1.1839763511151729e+02, E0=8.6250374999040975e+00,
            first="reject", rej_before=1,
            anchors={1: 1.1839763726656773e+02, 2: 1.1839764006560627e+02},
            # "first 1.02 growth at step 8"
            dt_used1=3.45728473470731e-3, grow1=False,
            e16={"reference -pa, 1 rank (15.3)": 1.1792848679793086e+02,
                 "assembled, V1+E2 (15.3)": 1.1792848680639756e+02}),
}

# Section 10.2: rejection factor, growth factor and growth threshold of the dt control.
DT_REJECT = 0.85
DT_GROW = 1.02

# Section 15.4, run 1: attempts are counted from 0 there ("attempt 7" is the 8th one):
# accepted steps 1-6 keep dt = dt_used1, then step 7 is rejected (dt_est 8.20435e-3) and
# retried with 7.13103343278054e-3 = 0.85 dt_used1. With dt_min between the two, the run
# must stop there: at step 7, t = 6 dt_used1, dt = 0.85 dt_used1 below dt_min.
RUN1_SECOND_REJECTION = dict(step=7, steps_before=6, dt_retry=7.13103343278054e-3)
