import pickle
from coderl.sandbox import Sandbox
rows = pickle.load(open("/tmp/v13/step13.pkl", "rb"))
t, c, p, s = rows[12]
out = []
for k in range(16):
    with Sandbox(workers=1) as sb:
        out.append(sb.run(t.build_request(c)).passed)
print("sessions passing:", sum(out), "of", len(out), out)
