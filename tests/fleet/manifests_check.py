#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""manifests_check SOURCE_DIR RENDERED COMPONENT...

Checks what kustomize rendered from dist/kubernetes's base with those
components (RENDERED, a YAML stream): each component's changes there, and
the base's own settings kept where no component changes them. Says each
failure on a line of its own; exit 0 all held, 1 not.
"""
import json
import os
import sys

import yaml

failures = []


def need(cond, what):
    if not cond:
        failures.append(what)


def one(docs, kind):
    found = [d for d in docs if d["kind"] == kind]
    need(len(found) == 1, "one %s, not %d" % (kind, len(found)))
    return found[0] if found else {}


def check_daemonset(ds, comps):
    pod = ds["spec"]["template"]["spec"]
    c = pod["containers"][0]
    sc = c["securityContext"]
    need(not pod.get("hostPID"), "no hostPID")
    need(sc["capabilities"] == {"drop": ["ALL"], "add": ["BPF", "PERFMON"]},
         "CAP_BPF and CAP_PERFMON alone")
    want = ({"type": "Localhost", "localhostProfile": "cpctools-node.json"}
            if "seccomp" in comps else {"type": "RuntimeDefault"})
    need(sc["seccompProfile"] == want, "seccomp %s" % want)
    need(any(a.startswith("--for-each-cgroup=") and
             "readonly" in a.split(",")[1:] for a in c["args"]),
         "--for-each-cgroup with readonly")
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    cg = mounts.get("cgroup", {})
    need(cg.get("readOnly") is True, "the cgroup mount read-only")
    paths = [m["mountPath"] for m in c["volumeMounts"]]
    if "cgroup-unified" in comps:
        need(cg.get("mountPath") == "/sys/fs/cgroup/unified" and
             vols["cgroup"]["hostPath"]["path"] == "/sys/fs/cgroup/unified",
             "the unified hierarchy alone")
        need("/sys/fs/cgroup" not in paths, "no mount of /sys/fs/cgroup")
    else:
        need(cg.get("mountPath") == "/sys/fs/cgroup" and
             cg.get("recursiveReadOnly") == "IfPossible",
             "/sys/fs/cgroup read-only through")
    for m in c["volumeMounts"]:
        need(m.get("readOnly") is True, "%s read-only" % m["name"])
    if "tracepoints" in comps:
        need(mounts.get("tracefs", {}).get("mountPath") ==
             "/sys/kernel/tracing", "tracefs mounted")
    else:
        need("tracefs" not in mounts, "no tracefs")
    notes = ds["spec"]["template"]["metadata"]["annotations"]
    web = "web-config" in comps
    need(("--web-config=/etc/cpctools/web/web.yml" in c["args"]) == web,
         "--web-config only with web-config")
    scheme = "HTTPS" if web else None
    for probe in ("livenessProbe", "readinessProbe"):
        need(c[probe]["httpGet"].get("scheme") == scheme,
             "%s scheme %s" % (probe, scheme))
    need(notes.get("prometheus.io/scheme") == ("https" if web else None),
         "the annotations' scheme")
    if web:
        need(vols.get("web-config", {}).get("secret", {}).get("secretName") ==
             "cpctools-web-config", "the web configuration's Secret")


def check_operator(src, docs, comps):
    kinds = [d["kind"] for d in docs]
    if "operator" not in comps:
        for k in ("PodMonitor", "Role", "RoleBinding", "PrometheusRule",
                  "ConfigMap"):
            need(k not in kinds, "no %s without operator" % k)
        return
    pm = one(docs, "PodMonitor")
    ep = pm["spec"]["podMetricsEndpoints"][0]
    if "web-config" in comps:
        need(ep.get("scheme") == "https", "the PodMonitor over https")
        need(ep.get("tlsConfig", {}).get("ca", {}).get("secret") ==
             {"name": "cpctools-web-config", "key": "ca.crt"},
             "the PodMonitor trusts the Secret's CA")
        need(ep.get("authorization") ==
             {"type": "Bearer",
              "credentials": {"name": "cpctools-web-config",
                              "key": "token"}},
             "the PodMonitor's token, from the Secret")
        need("basicAuth" not in ep, "the token, not a password")
    else:
        need("scheme" not in ep and "authorization" not in ep,
             "the PodMonitor plain")
    rb = one(docs, "RoleBinding")
    need(rb.get("subjects") == [{"kind": "ServiceAccount",
                                 "name": "prometheus-k8s",
                                 "namespace": "monitoring"}],
         "kube-prometheus's Prometheus bound")
    role = one(docs, "Role")
    need(all(set(r["verbs"]) == {"get", "list", "watch"}
             for r in role.get("rules", [])) and
         not any("secrets" in r["resources"] for r in role.get("rules", [])),
         "the Role reads, and no Secret")
    rules = yaml.safe_load(open(os.path.join(
        src, "dist", "prometheus", "cpctools.rules.yml")))["groups"]
    need(one(docs, "PrometheusRule").get("spec", {}).get("groups") == rules,
         "the PrometheusRule holds the rules file's groups")
    board = json.load(open(os.path.join(
        src, "dist", "grafana", "cpctools-dashboard.json")))
    cm = one(docs, "ConfigMap")
    need(json.loads(cm.get("data", {}).get("cpctools-dashboard.json",
                                           "null")) == board,
         "the ConfigMap holds the dashboard")


def main(src, rendered, comps):
    docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
    for d in docs:
        if d["kind"] not in ("Namespace", "PriorityClass"):
            need(d["metadata"].get("namespace") == "cpctools",
                 "%s %s in cpctools" % (d["kind"], d["metadata"]["name"]))
    check_daemonset(one(docs, "DaemonSet"), comps)
    np = one(docs, "NetworkPolicy").get("spec", {})
    need(np.get("ingress") == [{
        "from": [{"namespaceSelector": {"matchLabels": {
            "kubernetes.io/metadata.name": "monitoring"}}}],
        "ports": [{"protocol": "TCP", "port": "metrics"}]}],
        "only the monitoring namespace admitted")
    check_operator(src, docs, comps)
    for f in failures:
        print("%s: %s" % ("+".join(comps) or "base", f))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
