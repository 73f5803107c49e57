// deploy/k8s validated against the Kubernetes OpenAPI schemas (kubernetes-models' generated
// validators), plus the wiring a schema cannot see: the shard pods' member ids, preStop drain,
// the TLS Secret, the etcd members named in the fronts' endpoints.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { ROLE_URIS } from '../../src/rpc/roles.js';

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
  t.true(pod.volumes.some((v: Json) => v.secret?.secretName === 'mailcue-shard-tls'));
  t.true(docs('shards-statefulset.yaml').some((d) => d.kind === 'PodDisruptionBudget'));
  const config = docs('configmap.yaml')[0]!.data;
  const etcd = docs('etcd-statefulset.yaml').find((d) => d.kind === 'StatefulSet')!;
  t.is(etcd.spec.replicas, 3);
  const endpoints = config.MAILCUE_ETCD_ENDPOINTS.split(',');
  t.deepEqual(endpoints, [0, 1, 2].map((i) => `https://mailcue-etcd-${i}.mailcue-etcd:2379`));
  for (const k of ['MAILCUE_TLS_CA', 'MAILCUE_TLS_CERT', 'MAILCUE_TLS_KEY']) t.regex(config[k], /^\/tls\/(ca\.crt|tls\.crt|tls\.key)$/);
  const cert = docs('certificate.example.yaml').find((d) => d.kind === 'Certificate' && d.metadata.name === 'mailcue-shard-tls')!;
  t.deepEqual(cert.spec.usages, ['server auth', 'client auth']);
  t.true(cert.spec.dnsNames.includes(config.MAILCUE_TLS_SERVER_NAME));
  const front = docs('front-deployment.yaml').find((d) => d.kind === 'Deployment')!;
  t.false(JSON.stringify(front).includes('MAILCUE_SHARDS'));
});

test('deploy - every tier has its role\'s certificate; etcd is TLS with client certificates; fronts hold no master key', (t) => {
  const certs = docs('certificate.example.yaml').filter((d) => d.kind === 'Certificate');
  const byName = new Map(certs.map((c) => [c.metadata.name as string, c.spec as Json]));
  t.deepEqual(byName.get('mailcue-shard-tls')!.uris, [ROLE_URIS.shard]);
  t.deepEqual(byName.get('mailcue-front-tls')!.uris, [ROLE_URIS.front]);
  t.true(byName.get('mailcue-etcd-tls')!.dnsNames.includes('*.mailcue-etcd'));
  for (const c of certs) if (c.metadata.name !== 'mailcue-ca') t.is(c.spec.issuerRef.name, 'mailcue-ca', `${c.metadata.name}: one CA for all`);
  const secretOf = (file: string, kind: string) => docs(file).find((d) => d.kind === kind)!.spec.template.spec.volumes.find((v: Json) => v.name === 'tls').secret.secretName;
  t.is(secretOf('shards-statefulset.yaml', 'StatefulSet'), 'mailcue-shard-tls');
  t.is(secretOf('front-deployment.yaml', 'Deployment'), 'mailcue-front-tls');
  t.is(secretOf('etcd-statefulset.yaml', 'StatefulSet'), 'mailcue-etcd-tls');
  const etcd = docs('etcd-statefulset.yaml').find((d) => d.kind === 'StatefulSet')!.spec.template.spec.containers[0];
  for (const flag of ['--client-cert-auth=true', '--peer-client-cert-auth=true', '--trusted-ca-file=/tls/ca.crt', '--peer-trusted-ca-file=/tls/ca.crt']) t.true(etcd.args.includes(flag), flag);
  t.true(etcd.args.filter((a: string) => /-urls=/.test(a) && !a.startsWith('--listen-metrics-urls')).every((a: string) => !a.includes('http://')), 'client and peer URLs are https');
  t.is(etcd.readinessProbe.httpGet.port, 'metrics');
  // Every file: no plaintext gRPC, and the front never sees the master key (API keys cross it sealed).
  for (const file of files) t.false(readFileSync(new URL(file, K8S), 'utf8').includes('--insecure'), file);
  const front = docs('front-deployment.yaml').find((d) => d.kind === 'Deployment')!.spec.template.spec.containers[0];
  t.false(JSON.stringify(front.envFrom ?? []).includes('mailcue-secrets'), 'no envFrom of the whole Secret');
  t.deepEqual(front.env.filter((e: Json) => e.valueFrom?.secretKeyRef).map((e: Json) => e.name), ['MAILCUE_ADMIN_TOKEN']);
});
