/**
 * MCP's own shapes, as an mcp instance answers them: tools and their call results, resources,
 * resource templates and subscriptions, prompts, and the server's info. Loose objects, so a newer
 * server's extra fields pass through.
 */
import { z } from "zod";
import { MAX_RESOURCE_URI_CHARS } from "../rpc.js";

const json = z.unknown();
const nonEmpty = z.string().min(1);

export const ToolDescriptorSchema = z.looseObject({
  name: nonEmpty,
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), json).optional(),
  outputSchema: z.record(z.string(), json).optional(),
  annotations: z.record(z.string(), json).optional(),
});

/** A call result: MCP's CallToolResult (content, structuredContent?, isError?). */
export const ToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  structuredContent: z.record(z.string(), json).optional(),
  isError: z.boolean().optional(),
});

export const ResourceSchema = z.looseObject({
  uri: nonEmpty,
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
});

export const ResourceTemplateSchema = z.looseObject({
  uriTemplate: nonEmpty,
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
});

export const ResourceContentsSchema = z
  .looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  })
  .refine(
    (c) => (c.text === undefined) !== (c.blob === undefined),
    "each resource content carries exactly one of text and blob",
  );

/**
 * The URI of a resource subscription: bounded, because the updates a plugin sends back name it
 * and the host refuses longer ones there (contract/rpc-check.ts), so every URI one can subscribe
 * to can also be reported updated.
 */
export const SubscriptionUriSchema = nonEmpty.max(MAX_RESOURCE_URI_CHARS);

/** subscribe_resource / unsubscribe_resource answer nothing (MCP's empty result). */
export const NothingSchema = z.union([z.undefined(), z.null()]);

export const ReadResourceResultSchema = z.looseObject({ contents: z.array(ResourceContentsSchema) });

export const PromptSchema = z.looseObject({
  name: nonEmpty,
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z
    .array(z.looseObject({ name: nonEmpty, description: z.string().optional(), required: z.boolean().optional() }))
    .optional(),
});

export const GetPromptResultSchema = z.looseObject({
  description: z.string().optional(),
  messages: z.array(
    z.looseObject({ role: z.enum(["user", "assistant"]), content: z.looseObject({ type: z.string() }) }),
  ),
});

export const ServerInfoSchema = z.looseObject({
  name: z.string().optional(),
  version: z.string().optional(),
  title: z.string().optional(),
  instructions: z.string().optional(),
});
