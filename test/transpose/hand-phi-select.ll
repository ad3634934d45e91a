; ad-transpose alone on a hand-written f.lin: a linear select and a linear
; phi.
;   s = c ? dx : dy;  p = c ? k dx : dy (through a branch);  return p + s
; The select sends ct to the chosen arm and 0 to the other, under the taped
; condition c. The merge block becomes a branch on the taped predecessor
; index (!ad.pred; 0 is entry, the first predecessor in layout order), and
; the phi an accumulation on each reversed edge.
; Besides the tags ("ad-kind"="lin") and !ad.linear, ad-transpose reads
; !ad.static on tape reads that other blocks use (valid anywhere in f.rev;
; without it %k cannot be rebuilt in then) and !ad.pred on the predecessor
; index.
; RUN: %opt -passes=ad-transpose,ad-verify %s -S | FileCheck %s

%f.tape = type { i1, double, i8 }
declare double @f(double, double)

define internal double @f.lin(ptr %tape, double %dx, double %dy) #0 {
entry:
  %c.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 0
  %c = load i1, ptr %c.slot, !ad.static !0
  %k.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 1
  %k = load double, ptr %k.slot, !ad.static !0
  %s = select i1 %c, double %dx, double %dy, !ad.linear !0
  br i1 %c, label %then, label %join
then:
  %a = fmul double %k, %dx, !ad.linear !0
  br label %join
join:
  %p = phi double [ %a, %then ], [ %dy, %entry ], !ad.linear !0
  %pred.slot = getelementptr inbounds %f.tape, ptr %tape, i32 0, i32 2
  %pred.idx = load i8, ptr %pred.slot, !ad.pred !0
  %r = fadd double %p, %s, !ad.linear !0
  ret double %r
}

attributes #0 = { "ad-activity"="aa" "ad-kind"="lin" "ad-primal"="f" }
!0 = !{}

; CHECK-LABEL: define internal { double, double } @f.rev(
; CHECK-SAME: ptr [[TAPE:%.*]], double [[CT:%.*]]) #{{[0-9]+}} {
; CHECK-NEXT:  seed:
; CHECK-NEXT:    br label %join
; CHECK:       join:
; CHECK-NEXT:    [[PRED_SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 2
; CHECK-NEXT:    [[PRED_IDX:%.*]] = load i8, ptr [[PRED_SLOT]], align 1
; CHECK-NEXT:    [[COND:%.*]] = icmp eq i8 [[PRED_IDX]], 0
; CHECK-NEXT:    br i1 [[COND]], label %join.from.entry, label %join.from.then
; CHECK:       then:
; CHECK-NEXT:    [[K_SLOT:%.*]] = getelementptr inbounds{{( nuw)?}} %f.tape, ptr [[TAPE]], i32 0, i32 1
; CHECK-NEXT:    [[K:%.*]] = load double, ptr [[K_SLOT]], align 8
; CHECK-NEXT:    [[TMP0:%.*]] = fmul double [[CT]], [[K]]
; CHECK-NEXT:    br label %entry
; CHECK:       entry:
; CHECK-NEXT:    [[DY_CT_0:%.*]] = phi double [ [[CT]], %join.from.entry ], [ -0.000000e+00, %then ]
; CHECK-NEXT:    [[DX_CT_0:%.*]] = phi double [ -0.000000e+00, %join.from.entry ], [ [[TMP0]], %then ]
; CHECK-NEXT:    [[C:%.*]] = load i1, ptr [[TAPE]], align 1
; CHECK-NEXT:    [[TMP1:%.*]] = select i1 [[C]], double [[CT]], double 0.000000e+00
; CHECK-NEXT:    [[TMP2:%.*]] = fadd double [[DX_CT_0]], [[TMP1]]
; CHECK-NEXT:    [[TMP3:%.*]] = select i1 [[C]], double 0.000000e+00, double [[CT]]
; CHECK-NEXT:    [[TMP4:%.*]] = fadd double [[DY_CT_0]], [[TMP3]]
; CHECK-NEXT:    [[TMP5:%.*]] = fadd double [[TMP2]], 0.000000e+00
; CHECK-NEXT:    [[TMP6:%.*]] = fadd double [[TMP4]], 0.000000e+00
; CHECK-NEXT:    [[MRV:%.*]] = insertvalue { double, double } poison, double [[TMP5]], 0
; CHECK-NEXT:    [[MRV4:%.*]] = insertvalue { double, double } [[MRV]], double [[TMP6]], 1
; CHECK-NEXT:    ret { double, double } [[MRV4]]
; CHECK:       join.from.entry:
; CHECK-NEXT:    br label %entry
; CHECK:       join.from.then:
; CHECK-NEXT:    br label %then
