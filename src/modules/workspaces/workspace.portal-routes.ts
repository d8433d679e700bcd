import { PROFILE_CHANGE_ERRORS } from './workspace.profile.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { errorResponses } from '../../http/error-examples.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import type { Config } from '../../config/config.js';
import type { WorkspaceService } from './workspace.service.js';
import { portalRoute, type WorkspaceRoute } from '../../http/workspace-route.js';
import { PORTAL_DESCRIPTION_MAX_CHARS } from './workspace.js';
import { presentWorkspace } from './workspace.present.js';
import { CreateWorkspaceBody, UpdateWorkspaceBody, WorkspaceView } from './workspace.schemas.js';
import { workspaceExamples } from './workspace.examples.js';

/** What these routes call. */
export interface WorkspacePortalRouteDeps {
  readonly config: Pick<Config, 'maxWorkspacesPerWallet'>;
  readonly workspaces: WorkspaceService;
}

const tags = ['Portal'];

const LIST_DOCS: OperationDocs = { errors: ['session_required'], examples: workspaceExamples.list };
const CREATE_DOCS: OperationDocs = {
  errors: [
    'invalid_request',
    'unknown_field',
    'invalid_json',
    'description_too_long',
    'session_required',
    'origin_mismatch',
    'workspace_limit_reached',
  ],
  examples: workspaceExamples.create,
};

/** The signed-in wallet's workspaces: before any workspace is chosen, so outside the ownership check. */
export function workspaceListPortalRoutes(services: WorkspacePortalRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/workspaces',
      {
        config: { docs: LIST_DOCS },
        schema: {
          tags,
          summary: "List the signed-in wallet's workspaces",
          response: {
            200: Type.Object({ workspaces: Type.Array(WorkspaceView) }),
            ...errorResponses(LIST_DOCS.errors),
          },
        },
      },
      async (request) => ({
        workspaces: (await services.workspaces.listOwnedBy(request.portalSession!.wallet)).map(presentWorkspace),
      }),
    );

    app.post(
      '/workspaces',
      {
        config: { docs: CREATE_DOCS },
        schema: {
          tags,
          summary: 'Create a workspace',
          description: `The signed-in wallet becomes its one receiving address. A wallet's first workspace gets the configured credit grant, unless the client address has already had FREE_GRANTS_PER_IP_PER_DAY of them today (the workspace is then created without); its later workspaces start with none. At most ${services.config.maxWorkspacesPerWallet} workspaces per wallet (409 workspace_limit_reached).`,
          body: CreateWorkspaceBody,
          response: { 201: WorkspaceView, ...errorResponses(CREATE_DOCS.errors) },
        },
      },
      async (request, reply) => {
        // request.ip is the client address as TRUST_PROXY resolves it, as for every per-IP limit.
        const workspace = await services.workspaces.create(request.portalSession!.wallet, request.body, request.ip);
        return reply.code(201).send(presentWorkspace(workspace));
      },
    );
  };
}

/** The portal's settings tab renames the workspace itself (`PATCH /portal/api/w/:workspaceId`). */
export function workspacePortalRoutes(services: WorkspacePortalRouteDeps): WorkspaceRoute[] {
  return [
    portalRoute({
      method: 'PATCH',
      url: '',
      schema: {
        summary: 'Change the workspace profile',
        description: `The name, description, support contact or accent colour; fields left out stay as they are. The description is limited to ${PORTAL_DESCRIPTION_MAX_CHARS} characters here.`,
        params: WorkspaceParams,
        body: UpdateWorkspaceBody,
        response: { 200: WorkspaceView },
      },
      errors: PROFILE_CHANGE_ERRORS,
      examples: workspaceExamples.update,
      example: { body: { name: 'Renamed', supportContact: 'help@example.com', accentColor: '#0052ff' } },
      handler: async (request) =>
        presentWorkspace(await services.workspaces.update(request.principal!.workspaceId, request.body, 'portal')),
    }),
  ];
}
