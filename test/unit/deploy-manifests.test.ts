// deploy/k8s validated against the Kubernetes OpenAPI schemas (kubernetes-models' generated
// validators), plus the wiring a schema cannot see: the shard pods' member ids, preStop drain,
// the TLS Secret, the etcd members named in the fronts' endpoints.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const K8S = new URL('../../deploy/k8s/', import.meta.url);
type Json = Record<string, any>;

function docs(file: string): Json[] {
  return parseAllDocuments(readFileSync(new URL(file, K8S), 'utf8')).map((d) => d.toJSON() as Json).filter(Boolean);
}

/** The kubernetes-models class of a built-in kind, or null for kinds it does not ship (CRDs). */
async function model(apiVersion: string, kind: string): Promise<(new (o: Json) => { validate(): void }) | null> {
  try {
    const group = (await import(`kubernetes-models/${apiVersion}`)) as Record<string, new (o: Json) => { validate(): void }>;
    return group[kind] ?? null;
  } catch {
    return null;
  }
}

const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');

test('deploy - every built-in object in deploy/k8s passes the Kubernetes schema', async (t) => {
  let checked = 0;
  for (const file of files) {
    for (const doc of docs(file)) {
      const Model = await model(doc.apiVersion, doc.kind);
      if (!Model) {
        t.regex(doc.apiVersion, /^cert-manager\.io\//, `${file}: ${doc.apiVersion} ${doc.kind} has no schema here`);
        continue;
      }
      t.notThrows(() => new Model(doc).validate(), `${file}: ${doc.kind} ${doc.metadata?.name}`);
      checked++;
    }
  }
  t.true(checked >= 10, String(checked));
});

test('deploy - the validator rejects a broken manifest (negative control)', async (t) => {
  const [sts] = docs('shards-statefulset.yaml').filter((d) => d.kind === 'StatefulSet');
  const broken = structuredClone(sts!);
  broken.spec.template.spec.containers[0].ports[0].containerPort = 'seven thousand';
  const Model = (await model('apps/v1', 'StatefulSet'))!;
  t.throws(() => new Model(broken).validate());
});

test('deploy - kustomization lists files that exist; the cert-manager example stays out of it', (t) => {
  const k = docs('kustomization.yaml')[0]!;
  for (const r of k.resources) t.true(files.includes(r), r);
  t.true(k.resources.includes('etcd-statefulset.yaml'));
  t.false(k.resources.includes('certificate.example.yaml'));
});

test('deploy - shards register as their pod, drain before stopping, speak mTLS; fronts find etcd', (t) => {
  const sts = docs('shards-statefulset.yaml').find((d) => d.kind === 'StatefulSet')!;
  const pod = sts.spec.template.spec;
  const c = pod.containers[0];
  t.deepEqual(c.args.slice(0, 3), ['shard', '--id', '$(POD_NAME)']);
  t.true(c.args.includes('--advertise'));
  t.false(c.args.includes('--insecure'));
  t.true(c.env.some((e: Json) => e.name === 'POD_NAME' && e.valueFrom.fieldRef.fieldPath === 'metadata.name'));
  t.regex(c.lifecycle.preStop.exec.command.join(' '), /admin cluster drain "\$POD_NAME"/);
  t.true(pod.terminationGracePeriodSeconds >= 300);
  t.true(pod.volumes.some((v: Json) => v.secret?.secretName === 'mailcue-tls'));
  t.true(docs('shards-statefulset.yaml').some((d) => d.kind === 'PodDisruptionBudget'));
  const config = docs('configmap.yaml')[0]!.data;
  const etcd = docs('etcd-statefulset.yaml').find((d) => d.kind === 'StatefulSet')!;
  t.is(etcd.spec.replicas, 3);
  const endpoints = config.MAILCUE_ETCD_ENDPOINTS.split(',');
  t.deepEqual(endpoints, [0, 1, 2].map((i) => `http://mailcue-etcd-${i}.mailcue-etcd:2379`));
  for (const k of ['MAILCUE_TLS_CA', 'MAILCUE_TLS_CERT', 'MAILCUE_TLS_KEY']) t.regex(config[k], /^\/tls\/(ca\.crt|tls\.crt|tls\.key)$/);
  const cert = docs('certificate.example.yaml').find((d) => d.kind === 'Certificate' && d.metadata.name === 'mailcue-tls')!;
  t.deepEqual(cert.spec.usages, ['server auth', 'client auth']);
  t.true(cert.spec.dnsNames.includes(config.MAILCUE_TLS_SERVER_NAME));
  const front = docs('front-deployment.yaml').find((d) => d.kind === 'Deployment')!;
  t.false(JSON.stringify(front).includes('MAILCUE_SHARDS'));
});
