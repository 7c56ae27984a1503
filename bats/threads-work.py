# threads-work.py STEPS: four threading.Thread workers, each mixing a
# 64-bit LCG for STEPS rounds and folding its value into a shared result
# in strict turn (a Condition hand-off), so that the output is the same in
# every run; prints "ready PID" first and "python threads ok" last.
import os
import sys
import threading

N = 4
MASK = (1 << 64) - 1
steps = int(sys.argv[1])
cond = threading.Condition()
turn = 0
results = [0] * N


def worker(k):
    global turn
    x = k + 1
    for step in range(steps):
        for i in range(500):
            x = (x * 6364136223846793005 + 1442695040888963407 + i) & MASK
        with cond:
            while turn % N != k:
                cond.wait()
            turn += 1
            results[k] ^= x ^ step
            cond.notify_all()


print("ready", os.getpid(), flush=True)
threads = [threading.Thread(target=worker, args=(k,), name="work%d" % k) for k in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for k in range(N):
    print("worker %d %016x" % (k, results[k]))
print("turns", turn)
print("python threads ok", flush=True)
