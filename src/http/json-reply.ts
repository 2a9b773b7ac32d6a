import type { FastifyReply } from 'fastify'

/** What fastify sends an object as; JSON text sent as a string must say the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** Answers with JSON text already written, as fastify would answer the value it was written from. */
export const sendJsonText = (reply: FastifyReply, text: string): FastifyReply => reply.type(JSON_CONTENT_TYPE).send(text)
