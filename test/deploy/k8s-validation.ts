import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

/**
 * Loads the manifests under k8s/ and checks them against the Kubernetes API's schemas, offline:
 * kubernetes-models (the OpenAPI definitions compiled to validators, and as TypeScript types)
 * and @kubernetes-models/keda for KEDA's CRDs.
 */

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const K8S_DIR = path.join(REPO_ROOT, 'k8s');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Manifest {
  /** Relative to k8s/. */
  file: string;
  doc: K8sObject;
}

interface ModelClass {
  new (data: never): { validate(): void };
}

/**
 * Every kind the manifests may use, by apiVersion/kind: its validator and the module and
 * interface that type it. A kind missing here fails the test, so a new kind brings its schema.
 */
const MODELS: Record<string, { model: ModelClass; module: string; type: string }> = {
  'v1/Namespace': { model: Namespace, module: 'kubernetes-models/v1/Namespace', type: 'INamespace' },
  'v1/ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1/Secret': { model: Secret, module: 'kubernetes-models/v1/Secret', type: 'ISecret' },
  'v1/Service': { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
  'v1/PersistentVolumeClaim': { model: PersistentVolumeClaim, module: 'kubernetes-models/v1/PersistentVolumeClaim', type: 'IPersistentVolumeClaim' },
  'apps/v1/Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'batch/v1/Job': { model: Job, module: 'kubernetes-models/batch/v1/Job', type: 'IJob' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler,
    module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    type: 'IHorizontalPodAutoscaler',
  },
  'keda.sh/v1alpha1/ScaledObject': { model: ScaledObject, module: '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject', type: 'IScaledObject' },
};

const keyOf = (doc: K8sObject): string => `${doc.apiVersion}/${doc.kind}`;

/** Every .yaml file in k8s/ except the kustomization itself. */
export function manifestFiles(): string[] {
  return readdirSync(K8S_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort();
}

export function loadManifests(files: string[]): Manifest[] {
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(K8S_DIR, file), 'utf8')).map((d, i) => {
      if (d.errors.length) throw new Error(`k8s/${file} document ${i + 1}: ${d.errors[0].message}`);
      return { file, doc: d.toJS() as K8sObject };
    }),
  );
}

export interface Kustomization {
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

export function loadKustomization(): Kustomization {
  return parse(readFileSync(path.join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as Kustomization;
}

/** The schema's complaint about one object, or null when it is valid. */
export function schemaError(m: Manifest): string | null {
  const entry = MODELS[keyOf(m.doc)];
  if (!entry) return `k8s/${m.file}: no schema for ${keyOf(m.doc)} (add its model to MODELS)`;
  try {
    new entry.model(m.doc as never).validate();
    return null;
  } catch (e) {
    return `k8s/${m.file} ${m.doc.kind}/${m.doc.metadata?.name}: ${(e as Error).message}`;
  }
}

/**
 * Fields the API does not know. The compiled validators accept them (the OpenAPI definitions do
 * not forbid extra properties) but `kubectl apply` rejects them (strict field validation), and
 * they are what a typo makes: `readinesProbe` is a container without a readiness probe. Each
 * object becomes a TypeScript object literal of its API type, whose excess-property check names
 * any unknown field at any depth, along with wrong types.
 */
export function unknownFieldErrors(manifests: Manifest[]): string[] {
  const known = manifests.filter((m) => MODELS[keyOf(m.doc)]);
  const imports = [...new Set(known.map((m) => keyOf(m.doc)))]
    .map((k) => `import type { ${MODELS[k].type} } from '${MODELS[k].module}';`)
    .join('\n');
  const chunks = [imports];
  let lineCount = imports.split('\n').length;
  /** The first line (1-based) of each object's declaration, to name the object a diagnostic is in. */
  const origin: { line: number; m: Manifest }[] = [];
  known.forEach((m, i) => {
    const declaration = `export const m${i}: ${MODELS[keyOf(m.doc)].type} = ${JSON.stringify(m.doc, null, 1)};`;
    origin.push({ line: lineCount + 1, m });
    chunks.push(declaration);
    lineCount += declaration.split('\n').length;
  });
  const source = chunks.join('\n');

  // A file that does not exist, beside this one, so node_modules resolves as for the tests.
  const fileName = path.join(__dirname, '__k8s_manifest_types__.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === fileName ? source : readFile(f));
  host.fileExists = (f) => f === fileName || fileExists(f);
  host.getSourceFile = (f, lang, onError, create) =>
    f === fileName ? ts.createSourceFile(f, source, lang) : getSourceFile(f, lang, onError, create);
  const program = ts.createProgram([fileName], options, host);

  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.file.fileName !== fileName || d.start === undefined) return message;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const at = [...origin].reverse().find((o) => o.line <= line);
    return at ? `k8s/${at.m.file} ${at.m.doc.kind}/${at.m.doc.metadata?.name}: ${message.split('\n').pop()}` : message;
  });
}
