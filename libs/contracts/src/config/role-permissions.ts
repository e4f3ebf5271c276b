import type { BuildRole } from '../run/run-vocabulary';
import type { ProjectConfig, RolePermission } from './project-config.schema';

/**
 * Role permissions (seed §4 "what the orchestrator will DO with a role's output") and the
 * defaults a project gets for every role its `permissions:` leaves out: the seed's own table,
 * plus the reviewer, who reads like the validator but runs nothing. A project naming one
 * override expects the rest to stay as documented, so a partial map is filled, never refused.
 */
export const DEFAULT_ROLE_PERMISSIONS: Readonly<Record<BuildRole, Readonly<RolePermission>>> = {
  proposer: { workspace: 'none', run_tests: false },
  critic: { workspace: 'read', run_tests: false },
  reviser: { workspace: 'none', run_tests: false },
  engineer: { workspace: 'write', run_tests: false },
  validator: { workspace: 'read', run_tests: true },
  reviewer: { workspace: 'read', run_tests: false },
  synthesizer: { workspace: 'read', run_tests: false },
};

/** The permission a role works under: the project's, or the default for a role it leaves out. */
export function permissionOf(config: Pick<ProjectConfig, 'permissions'>, role: BuildRole): RolePermission {
  return config.permissions?.[role] ?? DEFAULT_ROLE_PERMISSIONS[role];
}

/** Whether the role may see the workspace's file tree and ask to read files (`workspace` read or write). */
export function mayReadWorkspace(config: Pick<ProjectConfig, 'permissions'>, role: BuildRole): boolean {
  return permissionOf(config, role).workspace !== 'none';
}

/**
 * Whether a role's own output may ask for a test run. Nothing asks today: the orchestrator runs
 * the project's test command after every applied implementation as a step of the pipeline
 * (seed: "orchestrator ran pytest"), whatever the roles' permissions. `run_tests` is reserved
 * for agent-mode tool calls (seed M4), where the engineer's `run_tests` tool is offered only
 * when this is true.
 */
export function mayRunTests(config: Pick<ProjectConfig, 'permissions'>, role: BuildRole): boolean {
  return permissionOf(config, role).run_tests;
}
