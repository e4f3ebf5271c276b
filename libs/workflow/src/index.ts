export * from './build/build-types';
export { decide, buildWorkflow } from './build/build.workflow';
export { initialBuildState, emptyUsage } from './build/initial-state';
export * from './build/context-packs';
export * from './build/unresolved-criticisms';
export * from './budget';
export * from './evidence-block';
export * from './prompt-render';
export * from './report';
